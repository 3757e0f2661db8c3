import MastheadHTTP
import Synchronization

/// A small stand-in for Google's token endpoint and Play Developer API on loopback (a real
/// socket, plain HTTP): it records every request as sent, answers `POST /token` with a new
/// access token each time (`token-1`, `token-2`…, `expires_in` 3600 unless told), and answers
/// every other request with the next scripted answer, or 200 `{"kind":"ok"}`.
final class LocalGoogle: Sendable {
    struct Seen: Sendable {
        var method: String
        var target: String
        var headers: [(name: String, value: String)]
        var body: [UInt8]

        func header(_ name: String) -> String? { headers.first { $0.name == name.lowercased() }?.value }
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    struct State: Sendable {
        var seen: [Seen] = []
        var tokensIssued = 0
        var expiresIn = 3600
        /// The next answers of the token endpoint, before it issues tokens.
        var tokenAnswers: [HTTPResponse] = []
        /// The next answers of the API.
        var apiAnswers: [HTTPResponse] = []
    }

    let state = Mutex(State())
    private let server: HTTPServer

    init() throws {
        var configuration = HTTPServerConfiguration()
        configuration.port = 0
        configuration.threads = 1
        let box = Mutex(WeakGoogle())
        server = try HTTPServer(configuration: configuration) { request, responder in
            guard let google = box.withLock({ $0.google }) else { return responder.send(.json(503, [])) }
            responder.send(google.answer(request))
        }
        box.withLock { $0.google = self }
        try server.start()
    }

    struct WeakGoogle {
        weak var google: LocalGoogle?
    }

    var url: String { "http://127.0.0.1:\(server.port)" }
    var tokenURL: String { url + "/token" }
    var seen: [Seen] { state.withLock { $0.seen } }
    var apiRequests: [Seen] { seen.filter { $0.target != "/token" } }
    var tokenRequests: [Seen] { seen.filter { $0.target == "/token" } }

    func stop() {
        server.stop(gracePeriodMilliseconds: 100)
        server.waitUntilStopped()
    }

    private func answer(_ request: HTTPRequest) -> HTTPResponse {
        state.withLock { state in
            state.seen.append(Seen(method: request.method, target: request.target, headers: request.headers, body: request.body))
            if request.target == "/token" {
                if !state.tokenAnswers.isEmpty { return state.tokenAnswers.removeFirst() }
                state.tokensIssued += 1
                return .json(200, Array(#"{"access_token":"token-\#(state.tokensIssued)","expires_in":\#(state.expiresIn),"token_type":"Bearer"}"#.utf8))
            }
            if !state.apiAnswers.isEmpty { return state.apiAnswers.removeFirst() }
            return .json(200, Array(#"{"kind":"ok"}"#.utf8))
        }
    }
}
