import CEpoll
import Glibc
import MastheadSockets
import Synchronization

/// One thread's epoll loop: accepts connections from the shared listener, reads requests,
/// hands them to the handler, writes responses, and enforces the timeouts.
///
/// Connections are confined to the loop's thread. Responses come back through a mailbox that any
/// thread may fill; the loop drains it after each handler call and when woken.
final class EventLoop {
    let configuration: HTTPServerConfiguration
    let listener: Int32
    let handler: HTTPServer.Handler
    let poller: Poller
    let mailbox: Mailbox
    let state: HTTPServer.State
    private let parser: HTTPRequestParser
    private var connections: [Int32: Connection] = [:]
    private var nextConnectionId: UInt64 = 1
    private var nextRequestId: UInt64 = 1
    private var accepting = true
    private var readBuffer = [UInt8](repeating: 0, count: 64 * 1024)

    init(configuration: HTTPServerConfiguration, listener: Int32, handler: @escaping HTTPServer.Handler, state: HTTPServer.State) throws(SocketError) {
        self.configuration = configuration
        self.listener = listener
        self.handler = handler
        self.state = state
        poller = try Poller()
        mailbox = Mailbox(waker: poller.waker)
        parser = HTTPRequestParser(configuration: configuration)
        try poller.add(listener, exclusive: true)
    }

    /// Runs until the server stops and every request in flight has been answered (or the grace period ends).
    func run() {
        mailbox.adoptCurrentThread()
        var stopDeadline: Int64?
        while true {
            let result: (ready: [Poller.Readiness], woken: Bool)
            do { result = try poller.wait(milliseconds: 100) } catch { break }
            for readiness in result.ready {
                if readiness.descriptor == listener {
                    if accepting { acceptAll() }
                    continue
                }
                guard let connection = connections[readiness.descriptor] else { continue }
                if readiness.readable || readiness.closed { readAvailable(connection) }
                if readiness.writable && connections[readiness.descriptor] === connection { flush(connection) }
            }
            deliverMail()
            let now = EventLoop.now()
            checkTimeouts(now: now)
            if state.isStopping {
                if accepting {
                    accepting = false
                    poller.remove(listener)
                    stopDeadline = now + Int64(state.gracePeriodMilliseconds)
                }
                for connection in Array(connections.values) where !connection.awaitingResponse && connection.output.isEmpty {
                    close(connection)
                }
                if connections.isEmpty || now >= stopDeadline ?? now { break }
            }
        }
        for connection in Array(connections.values) { close(connection) }
    }

    // MARK: Connections

    private func acceptAll() {
        while true {
            let accepted: Int32?
            do { accepted = try ListeningSocket.accept(on: listener) } catch { return }
            guard let fd = accepted else { return }
            let connection = Connection(descriptor: fd, id: nextConnectionId, now: EventLoop.now())
            nextConnectionId += 1
            if connections.count >= configuration.maxConnectionsPerThread {
                connections[fd] = connection
                respond(connection, HTTPResponse.error(503, code: "too_many_connections", message: "the server has too many open connections", closeConnection: true))
                continue
            }
            do { try poller.add(fd) } catch {
                Glibc.close(fd)
                continue
            }
            connections[fd] = connection
        }
    }

    private func readAvailable(_ connection: Connection) {
        while true {
            let count = readBuffer.withUnsafeMutableBytes { Glibc.read(connection.descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                connection.input.append(contentsOf: readBuffer[0..<count])
                connection.lastActivity = EventLoop.now()
                if connection.requestStarted == nil { connection.requestStarted = connection.lastActivity }
                if count < readBuffer.count { break }
                continue
            }
            if count == 0 {
                connection.peerClosed = true
                break
            }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { break }
            close(connection)
            return
        }
        process(connection)
        if connection.peerClosed && !connection.awaitingResponse && connection.output.isEmpty && connections[connection.descriptor] === connection {
            close(connection)
        }
    }

    /// Parses and dispatches requests while none is in flight on this connection.
    private func process(_ connection: Connection) {
        // An answer given at once is written from inside this loop, and the write comes back here
        // for the next request: that call returns, and this loop goes on with the next request,
        // so a burst of pipelined requests does not nest one call per request on the stack.
        guard !connection.processing else { return }
        connection.processing = true
        defer { connection.processing = false }
        while !connection.awaitingResponse && !connection.closing && connection.inputStart < connection.input.count {
            let outcome = connection.input.withUnsafeBufferPointer { bytes in
                parser.parse(UnsafeBufferPointer(rebasing: bytes[connection.inputStart...]), headSearchedUpTo: connection.headSearched)
            }
            switch outcome {
            case .incomplete(let searched):
                connection.headSearched = searched
                return
            case .failure(let response):
                connection.inputStart = connection.input.count
                respond(connection, response)
                return
            case .request(let request, let consumed):
                connection.inputStart += consumed
                connection.headSearched = 0
                if connection.inputStart == connection.input.count {
                    connection.input.removeAll(keepingCapacity: true)
                    connection.inputStart = 0
                    connection.requestStarted = nil
                } else {
                    connection.requestStarted = EventLoop.now()
                }
                connection.awaitingResponse = true
                connection.requestId = nextRequestId
                nextRequestId += 1
                connection.keepAlive = request.keepAlive
                connection.handlerStarted = EventLoop.now()
                state.inFlight.add(1, ordering: .relaxed)
                handler(request, HTTPResponder(mailbox: mailbox, descriptor: connection.descriptor, requestId: connection.requestId))
                deliverMail()
            }
        }
    }

    private func deliverMail() {
        for letter in mailbox.take() {
            guard let connection = connections[letter.descriptor], connection.requestId == letter.requestId, connection.awaitingResponse else { continue }
            state.inFlight.subtract(1, ordering: .relaxed)
            connection.awaitingResponse = false
            connection.handlerStarted = nil
            respond(connection, letter.response)
        }
    }

    private func respond(_ connection: Connection, _ response: HTTPResponse) {
        let keepAlive = connection.keepAlive && !response.closeConnection && !state.isStopping
        if !keepAlive { connection.closing = true }
        connection.output.append(contentsOf: response.serialized(keepAlive: keepAlive))
        flush(connection)
    }

    private func flush(_ connection: Connection) {
        while connection.outputStart < connection.output.count {
            let count = connection.output.withUnsafeBytes { bytes in
                send(connection.descriptor, bytes.baseAddress! + connection.outputStart, bytes.count - connection.outputStart, Int32(MSG_NOSIGNAL))
            }
            if count > 0 {
                connection.outputStart += count
                connection.lastActivity = EventLoop.now()
                continue
            }
            if count < 0 && errno == EINTR { continue }
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                if !connection.watchingWrites {
                    connection.watchingWrites = true
                    try? poller.modify(connection.descriptor, writable: true)
                }
                return
            }
            close(connection)
            return
        }
        connection.output.removeAll(keepingCapacity: true)
        connection.outputStart = 0
        if connection.watchingWrites {
            connection.watchingWrites = false
            try? poller.modify(connection.descriptor, writable: false)
        }
        if connection.closing || (connection.peerClosed && !connection.awaitingResponse) {
            close(connection)
            return
        }
        // Requests that arrived while this one was in flight.
        process(connection)
    }

    private func close(_ connection: Connection) {
        guard connections[connection.descriptor] === connection else { return }
        if connection.awaitingResponse { state.inFlight.subtract(1, ordering: .relaxed) }
        connections[connection.descriptor] = nil
        poller.remove(connection.descriptor)
        Glibc.close(connection.descriptor)
    }

    // MARK: Timeouts

    private func checkTimeouts(now: Int64) {
        for connection in Array(connections.values) {
            if connection.awaitingResponse, let started = connection.handlerStarted,
                now - started > Int64(configuration.handlerTimeoutMilliseconds)
            {
                state.inFlight.subtract(1, ordering: .relaxed)
                connection.awaitingResponse = false
                respond(connection, HTTPResponse.error(503, code: "handler_timeout", message: "the request took too long to answer", closeConnection: true))
            } else if !connection.awaitingResponse, connection.output.isEmpty, let started = connection.requestStarted,
                now - started > Int64(configuration.readTimeoutMilliseconds)
            {
                connection.inputStart = connection.input.count
                respond(connection, HTTPResponse.error(408, code: "request_timeout", message: "the request did not arrive in time", closeConnection: true))
            } else if !connection.output.isEmpty, now - connection.lastActivity > Int64(configuration.readTimeoutMilliseconds) {
                close(connection)  // a reader too slow to take its response
            } else if !connection.awaitingResponse, connection.output.isEmpty, connection.requestStarted == nil,
                now - connection.lastActivity > Int64(configuration.idleTimeoutMilliseconds)
            {
                close(connection)
            }
        }
    }

    /// Monotonic milliseconds.
    static func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000
    }
}

/// One client connection's buffers and state, owned by its loop.
final class Connection {
    let descriptor: Int32
    let id: UInt64
    var input: [UInt8] = []
    var inputStart = 0
    /// How far past `inputStart` the end of the current request's header section has been looked for.
    var headSearched = 0
    var output: [UInt8] = []
    var outputStart = 0
    var awaitingResponse = false
    /// The request in flight (unique within the loop), to match its response.
    var requestId: UInt64 = 0
    var keepAlive = true
    var closing = false
    var peerClosed = false
    var watchingWrites = false
    /// Whether ``EventLoop`` is in its loop over this connection's requests.
    var processing = false
    var lastActivity: Int64
    /// When the first byte of the request being received arrived.
    var requestStarted: Int64?
    var handlerStarted: Int64?

    init(descriptor: Int32, id: UInt64, now: Int64) {
        self.descriptor = descriptor
        self.id = id
        lastActivity = now
    }
}

/// Responses waiting for their loop, filled from any thread.
final class Mailbox: Sendable {
    struct Letter: Sendable {
        var descriptor: Int32
        var requestId: UInt64
        var response: HTTPResponse
    }

    private let letters = Mutex<[Letter]>([])
    let waker: Waker
    /// The loop's thread: posting from it needs no wake-up, the loop reads the mailbox next.
    private let owner = Atomic<UInt>(0)

    init(waker: Waker) { self.waker = waker }

    /// Records the calling thread as the loop's.
    func adoptCurrentThread() { owner.store(UInt(pthread_self()), ordering: .relaxed) }

    func post(_ letter: Letter) {
        letters.withLock { $0.append(letter) }
        if owner.load(ordering: .relaxed) != UInt(pthread_self()) { waker.wake() }
    }

    func take() -> [Letter] {
        letters.withLock { letters in
            let taken = letters
            letters.removeAll(keepingCapacity: true)
            return taken
        }
    }
}

/// Answers one request, from any thread, once.
public struct HTTPResponder: Sendable {
    let mailbox: Mailbox
    let descriptor: Int32
    let requestId: UInt64

    /// Sends the response (later calls for the same request are ignored).
    public func send(_ response: HTTPResponse) {
        mailbox.post(Mailbox.Letter(descriptor: descriptor, requestId: requestId, response: response))
    }
}
