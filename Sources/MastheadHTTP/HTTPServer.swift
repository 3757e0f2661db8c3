import Foundation
public import MastheadSockets
import Synchronization

/// An HTTP/1.1 server on POSIX sockets: one epoll loop per thread sharing one listener.
///
/// A handler gets each request with an ``HTTPResponder`` and answers from any thread, at once or
/// later (after a database commit, say); a connection handles one request at a time.
public final class HTTPServer: Sendable {
    /// Called on a loop thread for each request; must not block for long.
    public typealias Handler = @Sendable (HTTPRequest, HTTPResponder) -> Void

    /// Called on a loop thread with the head of a request that expects `100 Continue` (its body
    /// still empty); returns the final answer that refuses it, or nil to let the body come.
    public typealias HeadCheck = @Sendable (HTTPRequest) -> HTTPResponse?

    /// Called on a loop thread with a refused request's error (or a timeout, or a connection over
    /// the limit); returns its answer, which the server sends with `Connection: close` before closing.
    public typealias ErrorResponse = @Sendable (HTTPError) -> HTTPResponse

    /// Shared between the loops: stopping, and the count of requests in flight.
    final class State: Sendable {
        let stopping = Atomic<Bool>(false)
        let inFlight = Atomic<Int>(0)
        let grace = Atomic<Int>(10_000)
        /// The most bytes one connection has had waiting to be sent, and buffered unparsed.
        let peakPendingOutput = Atomic<Int>(0)
        let peakBufferedInput = Atomic<Int>(0)

        var isStopping: Bool { stopping.load(ordering: .acquiring) }
        var gracePeriodMilliseconds: Int { grace.load(ordering: .relaxed) }
    }

    public let configuration: HTTPServerConfiguration
    private let listener: ListeningSocket
    private let handler: Handler
    private let headCheck: HeadCheck?
    private let errorResponse: ErrorResponse
    private let state = State()
    private let wakers = Mutex<[Waker]>([])
    private let finished = DispatchGroup()

    /// Binds the listening socket; ``start()`` begins serving.
    ///
    /// - Parameters:
    ///   - headCheck: decides whether a request sent with `Expect: 100-continue` may send its
    ///     body (nil: every such request gets `100 Continue`).
    ///   - errorResponse: answers the errors of the HTTP layer (by default ``plainErrorResponse(_:)``).
    ///   - handler: answers each complete request.
    public convenience init(
        configuration: HTTPServerConfiguration, headCheck: HeadCheck? = nil, errorResponse: @escaping ErrorResponse = HTTPServer.plainErrorResponse,
        handler: @escaping Handler
    ) throws(SocketError) {
        self.init(
            configuration: configuration, listener: try ListeningSocket(host: configuration.host, port: configuration.port), headCheck: headCheck,
            errorResponse: errorResponse, handler: handler)
    }

    /// Serves on a socket bound already (so a program can bind before it opens what its handler
    /// needs, and fail early when the port is taken); ``start()`` begins serving. The server
    /// closes the socket when stopped; `configuration`'s host and port are not used.
    public init(
        configuration: HTTPServerConfiguration, listener: ListeningSocket, headCheck: HeadCheck? = nil,
        errorResponse: @escaping ErrorResponse = HTTPServer.plainErrorResponse, handler: @escaping Handler
    ) {
        self.configuration = configuration
        self.headCheck = headCheck
        self.errorResponse = errorResponse
        self.handler = handler
        self.listener = listener
    }

    /// The bound port (the chosen one when configured with 0).
    public var port: UInt16 { listener.port }

    /// The bound host.
    public var host: String { listener.host }

    /// Starts the loop threads; returns once each is ready to accept.
    public func start() throws(SocketError) {
        let ready = DispatchSemaphore(value: 0)
        let failure = Mutex<SocketError?>(nil)
        for index in 0..<max(1, configuration.threads) {
            finished.enter()
            let thread = Thread { [self] in
                defer { finished.leave() }
                let loop: EventLoop
                do throws(SocketError) {
                    loop = try EventLoop(
                        configuration: configuration, listener: listener.descriptor, headCheck: headCheck, errorResponse: errorResponse,
                        handler: handler, state: state)
                } catch {
                    failure.withLock { $0 = error }
                    ready.signal()
                    return
                }
                wakers.withLock { $0.append(loop.poller.waker) }
                ready.signal()
                loop.run()
            }
            thread.name = "http-loop-\(index)"
            thread.stackSize = 1 << 20
            thread.start()
        }
        for _ in 0..<max(1, configuration.threads) { ready.wait() }
        if let error = failure.withLock({ $0 }) {
            stop(gracePeriodMilliseconds: 0)
            throw error
        }
    }

    /// Stops accepting, lets requests in flight finish (up to the grace period), then closes every connection.
    public func stop(gracePeriodMilliseconds: Int = 10_000) {
        state.grace.store(gracePeriodMilliseconds, ordering: .relaxed)
        state.stopping.store(true, ordering: .releasing)
        for waker in wakers.withLock({ $0 }) { waker.wake() }
    }

    /// The default answer to an error: its status and its message as plain text.
    @Sendable public static func plainErrorResponse(_ error: HTTPError) -> HTTPResponse {
        HTTPResponse(status: error.status, headers: [("Content-Type", "text/plain; charset=utf-8")], body: Array((error.message + "\n").utf8))
    }

    /// Blocks until every loop has ended after ``stop(gracePeriodMilliseconds:)``.
    public func waitUntilStopped() {
        finished.wait()
        listener.close()
    }

    /// Requests received but not yet answered.
    public var requestsInFlight: Int { state.inFlight.load(ordering: .relaxed) }

    /// The most response bytes any one connection has had waiting for its reader since start.
    package var peakPendingOutputBytes: Int { state.peakPendingOutput.load(ordering: .relaxed) }

    /// The most unparsed request bytes any one connection has had buffered since start.
    package var peakBufferedInputBytes: Int { state.peakBufferedInput.load(ordering: .relaxed) }
}
