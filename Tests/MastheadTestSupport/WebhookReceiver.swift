import Dispatch
import Foundation
import MastheadCrypto
import MastheadHTTP
import Synchronization

/// A webhook endpoint on loopback for tests (plain HTTP, a real socket): it records every request
/// it receives, in arrival order, and answers each with the status programmed for it (200 unless
/// told otherwise), after a delay when told to be slow. It can be stopped and started again on
/// the same port (an endpoint that is down for a while), and checks the `Masthead-Signature` of
/// what it received the way a publisher's receiver would.
public final class WebhookReceiver: Sendable {
    /// A request as received.
    public struct Received: Sendable {
        /// Its place among every request received since the receiver was made, from 0.
        public var arrival: Int
        public var method: String
        public var target: String
        public var headers: [(name: String, value: String)]
        public var body: [UInt8]

        /// The first header field named `name` (in any case), or nil.
        public func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }

        /// The body as UTF-8 text.
        public var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// What the receiver answers, changed by tests between or during deliveries.
    public struct Plan: Sendable {
        /// The statuses of the next answers, in order, before ``status``: `[503, 503]` fails the next two.
        public var next: [Int] = []
        /// The status of every other answer.
        public var status = 200
        /// How long after a request arrives its answer is sent: a slow endpoint.
        public var delayMilliseconds = 0
        /// Whether answers are held until ``WebhookReceiver/release()``: an endpoint that has not
        /// answered yet, for as long as the test needs.
        public var holding = false
    }

    private struct State {
        var received: [Received] = []
        var plan = Plan()
        var server: HTTPServer?
        /// Answers held while the plan holds them.
        var held: [(HTTPResponder, HTTPResponse)] = []
        /// Answers sent so far.
        var answered = 0
    }

    private let state = Mutex(State())
    /// Signalled once per request received.
    private let arrivals = DispatchSemaphore(value: 0)
    /// The port it listens on, the same after a restart.
    public let port: UInt16

    /// Starts a receiver on a free port of 127.0.0.1.
    public init() throws {
        let (server, box) = try Self.makeServer(port: 0)
        port = server.port
        box.box.withLock { $0.receiver = self }
        state.withLock { $0.server = server }
        try server.start()
    }

    /// Its URL: `http://127.0.0.1:<port><path>`.
    public func url(_ path: String = "/hooks") -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Changes what it answers.
    public func plan(_ change: (inout Plan) -> Void) { state.withLock { change(&$0.plan) } }

    /// Answers the next `count` requests with `status` (then the plan's status again).
    public func fail(next count: Int, status: Int = 503) { plan { $0.next += Array(repeating: status, count: count) } }

    /// Sends the answers held so far, and holds no more.
    public func release() {
        let held = state.withLock { state -> [(HTTPResponder, HTTPResponse)] in
            state.plan.holding = false
            defer { state.held = [] }
            return state.held
        }
        for (responder, response) in held { send(response, responder) }
    }

    /// How many answers have been sent.
    public var answered: Int { state.withLock { $0.answered } }

    /// Every request received so far, in arrival order.
    public var received: [Received] { state.withLock { $0.received } }

    /// Waits until at least `count` requests have been received in all, at most `timeoutSeconds`
    /// (a generous bound: the wait ends as soon as they are there); answers them all.
    @discardableResult
    public func waitFor(_ count: Int, timeoutSeconds: Double = 30) -> [Received] {
        let deadline = DispatchTime.now() + timeoutSeconds
        while received.count < count {
            if arrivals.wait(timeout: deadline) == .timedOut { break }
        }
        return received
    }

    /// Stops listening: connections are refused until ``restart()``.
    public func stop() {
        guard let server = state.withLock({ state -> HTTPServer? in
            defer { state.server = nil }
            return state.server
        }) else { return }
        server.stop(gracePeriodMilliseconds: 100)
        server.waitUntilStopped()
    }

    /// Listens again on the same port.
    public func restart() throws {
        stop()
        let (server, box) = try Self.makeServer(port: port)
        box.box.withLock { $0.receiver = self }
        state.withLock { $0.server = server }
        try server.start()
    }

    deinit { stop() }

    /// Whether `received` carries a `Masthead-Signature` (`t=<seconds>,v1=<hex>`) that is the
    /// HMAC-SHA256 of `"<t>.<body>"` under `secret`, with `t` within `toleranceSeconds` of `now`
    /// (Unix seconds): the check a publisher's receiver makes.
    public static func hasValidSignature(_ received: Received, secret: String, now: Int64, toleranceSeconds: Int64 = 300) -> Bool {
        guard let header = received.header("Masthead-Signature") else { return false }
        var timestamp: String?
        var signatures: [String] = []
        for part in header.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2 else { return false }
            if pair[0] == "t" { timestamp = pair[1] } else if pair[0] == "v1" { signatures.append(pair[1]) }
        }
        guard let timestamp, let seconds = Int64(timestamp), abs(now - seconds) <= toleranceSeconds else { return false }
        guard let expected = try? HMACSHA256.hex(key: Array(secret.utf8), message: Array((timestamp + ".").utf8) + received.body) else { return false }
        return signatures.contains(expected)
    }

    // MARK: Serving

    /// The receiver, for its server's handler, without keeping it alive.
    private struct Weak {
        weak var receiver: WebhookReceiver?
    }

    /// A server on `port` (0: a free one), not started, answering for the receiver the box will name.
    private static func makeServer(port: UInt16) throws -> (server: HTTPServer, box: SharedBox) {
        var configuration = HTTPServerConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = port
        configuration.threads = 1
        let shared = SharedBox()
        let server = try HTTPServer(configuration: configuration) { request, responder in
            guard let receiver = shared.box.withLock({ $0.receiver }) else { return responder.send(HTTPResponse(status: 503)) }
            let (status, delay) = receiver.record(request)
            let response = HTTPResponse(status: status, headers: [("Content-Type", "text/plain")], body: Array("ok\n".utf8))
            if receiver.hold(response, responder) { return }
            guard delay > 0 else { return receiver.send(response, responder) }
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(delay)) { receiver.send(response, responder) }
        }
        return (server, shared)
    }

    /// The box shared by a server's handler and the receiver that made it.
    private final class SharedBox: Sendable {
        let box = Mutex(Weak())
    }

    /// Keeps the answer for ``release()`` when the plan holds answers; false otherwise.
    private func hold(_ response: HTTPResponse, _ responder: HTTPResponder) -> Bool {
        state.withLock { state in
            guard state.plan.holding else { return false }
            state.held.append((responder, response))
            return true
        }
    }

    /// Sends an answer and counts it.
    private func send(_ response: HTTPResponse, _ responder: HTTPResponder) {
        state.withLock { $0.answered += 1 }
        responder.send(response)
    }

    /// Records `request` and answers the status and delay to answer it with.
    private func record(_ request: HTTPRequest) -> (status: Int, delay: Int) {
        let answer = state.withLock { state -> (Int, Int) in
            state.received.append(
                Received(arrival: state.received.count, method: request.method, target: request.target, headers: request.headers, body: request.body))
            let status = state.plan.next.isEmpty ? state.plan.status : state.plan.next.removeFirst()
            return (status, state.plan.delayMilliseconds)
        }
        arrivals.signal()
        return answer
    }
}
