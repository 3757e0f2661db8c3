import MastheadHTTP
import Synchronization

/// The loopback server a fake answers on: plain HTTP on a free port, one thread, each request
/// handed to the fake with its responder (answered at once, or later from another thread). The
/// server reaches its fake weakly: the fake owns the server, and a strong reference back would
/// keep both alive after the test.
final class FakeHTTPServer<Fake: AnyObject & Sendable>: Sendable {
    private let owner: Owner
    private let server: HTTPServer

    /// The fake the server answers for, once started.
    private final class Owner: Sendable {
        let fake = Mutex(Weak())
        struct Weak { weak var fake: Fake? }
    }

    /// Makes the server (not yet listening); `answer` answers each request for the fake.
    init(answer: @escaping @Sendable (Fake, HTTPRequest, HTTPResponder) -> Void) throws {
        var configuration = HTTPServerConfiguration()
        configuration.port = 0
        configuration.threads = 1
        let owner = Owner()
        server = try HTTPServer(configuration: configuration) { request, responder in
            guard let fake = owner.fake.withLock({ $0.fake }) else { return responder.send(.json(503, [])) }
            answer(fake, request, responder)
        }
        self.owner = owner
    }

    /// Starts answering for `fake`.
    func start(for fake: Fake) throws {
        owner.fake.withLock { $0.fake = fake }
        try server.start()
    }

    /// The port it listens on.
    var port: UInt16 { server.port }

    /// Stops the server.
    func stop() {
        server.stop(gracePeriodMilliseconds: 100)
        server.waitUntilStopped()
    }
}
