import Dispatch
import Glibc
import MastheadHTTP
import MastheadTestSupport
import Testing

/// The server over real sockets on port 0: framing, limits, keep-alive, timeouts, async answers.
struct HTTPServerTests {
    /// Echoes the method, path and body; `/slow` answers from another thread after 200 ms.
    static func start(_ configure: (inout HTTPServerConfiguration) -> Void = { _ in }) throws -> HTTPServer {
        var configuration = HTTPServerConfiguration()
        configuration.port = 0
        configure(&configuration)
        let server = try HTTPServer(configuration: configuration) { request, responder in
            let text = "\(request.method) \(request.pathSegments.joined(separator: "|")) \(request.query.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "&")) \(String(decoding: request.body, as: UTF8.self))"
            if request.pathSegments == ["slow"] {
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(200)) {
                    responder.send(HTTPResponse(status: 200, body: Array("slow done".utf8)))
                }
            } else {
                responder.send(HTTPResponse(status: 200, body: Array(text.utf8)))
            }
        }
        try server.start()
        return server
    }

    static func stop(_ server: HTTPServer) {
        server.stop(gracePeriodMilliseconds: 1000)
        server.waitUntilStopped()
    }

    @Test func keepAlive_servesSeveralRequests_andDecodesTarget() throws {
        let server = try Self.start()
        defer { Self.stop(server) }
        let client = try TestClient(port: server.port)
        client.send("GET /v1/users/a%20b?at=2020-01-01T00%3A00%3A00Z&x=1+2 HTTP/1.1\r\nHost: x\r\n\r\n")
        let first = try #require(client.response())
        #expect(first.status == 200)
        #expect(first.body == "GET v1|users|a b at=2020-01-01T00:00:00Z&x=1 2 ")
        client.send("POST /echo HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello")
        #expect(client.response()?.body == "POST echo  hello")
    }

    /// A request trickling in a few bytes at a time (the header search resumes where it stopped).
    @Test func requestArrivingInPieces_isParsed() throws {
        let server = try Self.start()
        defer { Self.stop(server) }
        let client = try TestClient(port: server.port)
        let request = Array("POST /piece?x=1 HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\n\r\nbody".utf8)
        var offset = 0
        while offset < request.count {
            let end = min(request.count, offset + 3)
            client.send(Array(request[offset..<end]))
            offset = end
            usleepMilliseconds(2)
        }
        #expect(client.response()?.body == "POST piece x=1 body")
    }

    @Test func pipelinedRequests_areAnsweredInOrder() throws {
        let server = try Self.start()
        defer { Self.stop(server) }
        let client = try TestClient(port: server.port)
        client.send("GET /slow HTTP/1.1\r\n\r\nGET /a HTTP/1.1\r\n\r\nPOST /b HTTP/1.1\r\nContent-Length: 2\r\n\r\nhi")
        #expect(client.response()?.body == "slow done")
        #expect(client.response()?.body == "GET a  ")
        #expect(client.response()?.body == "POST b  hi")
    }

    static let refusals: [(request: String, status: Int, code: String)] = [
        ("GARBAGE\r\n\r\n", 400, "bad_request"),
        ("GET /x HTTP/2.0\r\n\r\n", 505, "http_version_not_supported"),
        ("GET x HTTP/1.1\r\n\r\n", 400, "bad_request"),
        ("GET  /x HTTP/1.1\r\n\r\n", 400, "bad_request"),
        (" /x HTTP/1.1\r\n\r\n", 400, "bad_request"),
        ("GET /x HTTP/1.1 \r\n\r\n", 400, "bad_request"),
        ("GET /x\r\n\r\n", 400, "bad_request"),
        ("G@T /x HTTP/1.1\r\n\r\n", 400, "bad_request"),
        ("GET /x http/1.1\r\n\r\n", 400, "bad_request"),
        ("POST /x HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\nabc", 400, "bad_request"),
        ("POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n", 501, "not_implemented"),
        ("POST /x HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400, "bad_request"),
        ("POST /x HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab", 400, "bad_request"),
        ("GET /x HTTP/1.1\r\nBad Header: 1\r\n\r\n", 400, "bad_request"),
        ("GET /x HTTP/1.1\r\nA: 1\r\n folded\r\n\r\n", 400, "bad_request"),
        ("POST /x HTTP/1.1\r\nContent-Length: 2000\r\n\r\n", 413, "content_too_large"),
        ("GET /\(String(repeating: "a", count: 300)) HTTP/1.1\r\n\r\n", 414, "uri_too_long"),
        ("GET /x HTTP/1.1\r\nBig: \(String(repeating: "b", count: 600))\r\n\r\n", 431, "request_header_fields_too_large"),
        ("GET /x HTTP/1.1\r\n" + String(repeating: "H: v\r\n", count: 11) + "\r\n", 431, "request_header_fields_too_large"),
    ]

    @Test(arguments: refusals)
    func badRequest_getsJSONError_thenClose_andServerKeepsServing(refusal: (request: String, status: Int, code: String)) throws {
        let server = try Self.start {
            $0.maxBodyBytes = 1000
            $0.maxRequestLineBytes = 200
            $0.maxHeaderFieldBytes = 500
            $0.maxHeaderListBytes = 1000
            $0.maxHeaderCount = 10
        }
        defer { Self.stop(server) }
        let client = try TestClient(port: server.port)
        client.send(refusal.request)
        let response = try #require(client.response())
        #expect(response.status == refusal.status)
        #expect(response.headers["content-type"] == "application/json")
        #expect(response.headers["connection"] == "close")
        #expect(response.body.contains(#""code":"\#(refusal.code)""#))
        #expect(client.isClosedByServer())
        let other = try TestClient(port: server.port)
        other.send("GET /still HTTP/1.1\r\n\r\n")
        #expect(other.response()?.status == 200)
    }

    @Test func stalledClient_times_out_withoutStallingOthers() throws {
        let server = try Self.start { $0.readTimeoutMilliseconds = 300 }
        defer { Self.stop(server) }
        let stalled = try TestClient(port: server.port)
        stalled.send("POST /x HTTP/1.1\r\nContent-Length: 10\r\n\r\nabc")
        for _ in 0..<20 {
            let other = try TestClient(port: server.port)
            other.send("GET /fast HTTP/1.1\r\n\r\n")
            #expect(other.response()?.status == 200)
        }
        let answer = try #require(stalled.response())
        #expect(answer.status == 408)
        #expect(answer.body.contains("request_timeout"))
        #expect(stalled.isClosedByServer())
    }

    @Test func idleConnection_isClosed() throws {
        let server = try Self.start { $0.idleTimeoutMilliseconds = 200 }
        defer { Self.stop(server) }
        let client = try TestClient(port: server.port)
        client.send("GET /a HTTP/1.1\r\n\r\n")
        #expect(client.response()?.status == 200)
        #expect(client.isClosedByServer())
    }

    @Test func http10_closesAfterResponse_andConnectionCloseIsHonoured() throws {
        let server = try Self.start()
        defer { Self.stop(server) }
        let old = try TestClient(port: server.port)
        old.send("GET /a HTTP/1.0\r\n\r\n")
        #expect(old.response()?.headers["connection"] == "close")
        #expect(old.isClosedByServer())
        let closing = try TestClient(port: server.port)
        closing.send("GET /a HTTP/1.1\r\nConnection: close\r\n\r\n")
        #expect(closing.response()?.status == 200)
        #expect(closing.isClosedByServer())
    }

    @Test func handlerTimeout_answers503() throws {
        let server = try Self.start { $0.handlerTimeoutMilliseconds = 50 }
        defer { Self.stop(server) }
        let client = try TestClient(port: server.port)
        client.send("GET /slow HTTP/1.1\r\n\r\n")
        let response = try #require(client.response())
        #expect(response.status == 503)
        #expect(response.body.contains("handler_timeout"))
    }

    @Test func stop_finishesRequestsInFlight() throws {
        let server = try Self.start()
        let client = try TestClient(port: server.port)
        client.send("GET /slow HTTP/1.1\r\n\r\n")
        while server.requestsInFlight == 0 { usleepMilliseconds(5) }
        server.stop(gracePeriodMilliseconds: 2000)
        #expect(client.response()?.body == "slow done")
        server.waitUntilStopped()
        #expect(throws: (any Error).self) { try TestClient(port: server.port) }
    }

    @Test func manyConcurrentClients_onBothLoops() throws {
        let server = try Self.start()
        defer { Self.stop(server) }
        let clients = try (0..<50).map { _ in try TestClient(port: server.port) }
        for round in 0..<5 {
            for (index, client) in clients.enumerated() { client.send("GET /c\(index)/\(round) HTTP/1.1\r\n\r\n") }
            for (index, client) in clients.enumerated() { #expect(client.response()?.body == "GET c\(index)|\(round)  ") }
        }
    }
}

func usleepMilliseconds(_ milliseconds: Int) {
    var time = timespec(tv_sec: 0, tv_nsec: milliseconds * 1_000_000)
    nanosleep(&time, nil)
}
