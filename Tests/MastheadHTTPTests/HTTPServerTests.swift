import Dispatch
import Glibc
import MastheadHTTP
import MastheadTestSupport
import Testing

/// The server over real sockets on port 0: framing, limits, keep-alive, timeouts, async answers.
struct HTTPServerTests {
    /// A body of `/big/N`: N KiB.
    static func bigBody(kibibytes: Int) -> [UInt8] { [UInt8](repeating: UInt8(ascii: "b"), count: kibibytes * 1024) }

    /// The answer to an error in these tests: its status, and the case as written in Swift.
    static func describing(_ error: HTTPError) -> HTTPResponse {
        HTTPResponse(status: error.status, headers: [("Content-Type", "text/x-http-error")], body: Array("\(error)".utf8))
    }

    /// Echoes the method, path and body; `/slow` answers from another thread after 200 ms; `/big/N`
    /// answers N KiB. A request whose body has not all arrived is refused (401) by its head when
    /// it has `X-Deny`. Errors
    /// are answered with ``describing(_:)``, or as `errorResponse` says.
    static func start(
        _ configure: (inout HTTPServerConfiguration) -> Void = { _ in }, errorResponse: @escaping HTTPServer.ErrorResponse = describing
    ) throws -> HTTPServer {
        var configuration = HTTPServerConfiguration()
        configuration.port = 0
        configure(&configuration)
        let headCheck: HTTPServer.HeadCheck = { head in
            head.header("x-deny") != nil ? HTTPResponse(status: 401, body: Array("X-Deny refuses".utf8)) : nil
        }
        let server = try HTTPServer(configuration: configuration, headCheck: headCheck, errorResponse: errorResponse) { request, responder in
            let text = "\(request.method) \(request.pathSegments.joined(separator: "|")) \(request.query.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "&")) \(String(decoding: request.body, as: UTF8.self))"
            if request.pathSegments.count == 2 && request.pathSegments[0] == "big", let size = Int(request.pathSegments[1]) {
                responder.send(HTTPResponse(status: 200, body: Self.bigBody(kibibytes: size)))
            } else if request.pathSegments == ["slow"] {
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
        client.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nhello")
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
        client.send("GET /slow HTTP/1.1\r\nHost: t\r\n\r\nGET /a HTTP/1.1\r\nHost: t\r\n\r\nPOST /b HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n\r\nhi")
        #expect(client.response()?.body == "slow done")
        #expect(client.response()?.body == "GET a  ")
        #expect(client.response()?.body == "POST b  hi")
    }

    static let refusals: [(request: String, error: HTTPError)] = [
        ("GARBAGE\r\n\r\n", .invalidRequestLine),
        ("\r\n\r\n", .invalidRequestLine),
        ("GET /x HTTP/2.0\r\n\r\n", .unsupportedVersion),
        ("GET x HTTP/1.1\r\nHost: t\r\n\r\n", .invalidTarget),
        ("GET  /x HTTP/1.1\r\nHost: t\r\n\r\n", .invalidRequestLine),
        (" /x HTTP/1.1\r\nHost: t\r\n\r\n", .invalidRequestLine),
        ("GET /x HTTP/1.1 \r\n\r\n", .invalidRequestLine),
        ("GET /x\r\n\r\n", .invalidRequestLine),
        ("G@T /x HTTP/1.1\r\nHost: t\r\n\r\n", .invalidRequestLine),
        ("GET /x http/1.1\r\n\r\n", .invalidRequestLine),
        ("POST /x HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\nabc", .ambiguousFraming),
        ("POST /x HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n", .unsupportedTransferEncoding),
        ("POST /x HTTP/1.1\r\nHost: t\r\nContent-Length: -1\r\n\r\n", .invalidContentLength("-1")),
        ("POST /x HTTP/1.1\r\nHost: t\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab", .conflictingContentLength),
        ("GET /x HTTP/1.1\r\nHost: t\r\nBad Header: 1\r\n\r\n", .invalidHeaderField),
        ("GET /x HTTP/1.1\r\nHost: t\r\nA: 1\r\n folded\r\n\r\n", .obsoleteLineFolding),
        ("POST /x HTTP/1.1\r\nHost: t\r\nContent-Length: 2000\r\n\r\n", .bodyTooLarge(limit: 1000)),
        ("GET /\(String(repeating: "a", count: 300)) HTTP/1.1\r\nHost: t\r\n\r\n", .targetTooLong(limit: 200)),
        ("GET /\(String(repeating: "a", count: 300))", .targetTooLong(limit: 200)),
        ("GET /x HTTP/1.1\r\nHost: t\r\nBig: \(String(repeating: "b", count: 600))\r\n\r\n", .headerFieldTooLarge(limit: 500)),
        ("GET /x HTTP/1.1\r\nHost: t\r\n" + String(repeating: "H: v\r\n", count: 11) + "\r\n", .tooManyHeaderFields(limit: 10)),
        ("GET /x HTTP/1.1\r\nHost: t\r\n" + String(repeating: "Header: \(String(repeating: "v", count: 200))\r\n", count: 6) + "\r\n", .headersTooLarge(limit: 1000)),
        ("GET /x HTTP/1.1\r\nHost: t\r\n" + String(repeating: "Header: \(String(repeating: "v", count: 200))\r\n", count: 6), .headersTooLarge(limit: 1000)),
    ]

    /// Each refusal reaches the error closure as its typed error, is answered with what it returns,
    /// and the connection is closed.
    @Test(arguments: refusals)
    func badRequest_isAnsweredThroughTheErrorClosure_thenClosed_andServerKeepsServing(refusal: (request: String, error: HTTPError)) throws {
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
        #expect(response.status == refusal.error.status)
        #expect(response.headers["content-type"] == "text/x-http-error")
        #expect(response.headers["connection"] == "close")
        #expect(response.body == "\(refusal.error)")
        #expect(client.isClosedByServer())
        let other = try TestClient(port: server.port)
        other.send("GET /still HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(other.response()?.status == 200)
    }

    /// Without an error closure, an error is answered with its status and message as plain text.
    @Test func errorWithoutAClosure_isAnsweredAsPlainText() throws {
        var configuration = HTTPServerConfiguration()
        configuration.port = 0
        let server = try HTTPServer(configuration: configuration) { _, responder in responder.send(HTTPResponse(status: 200)) }
        try server.start()
        defer { Self.stop(server) }
        let client = try TestClient(port: server.port)
        client.send("POST /x HTTP/1.1\r\nHost: t\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab")
        let response = try #require(client.response())
        #expect(response.status == 400)
        #expect(response.headers["content-type"] == "text/plain; charset=utf-8")
        #expect(response.body == "conflicting Content-Length fields\n")
        #expect(client.isClosedByServer())
    }

    /// A connection past the loop's limit is answered with `tooManyConnections` and closed.
    @Test func connectionOverTheLimit_getsTooManyConnections_andIsClosed() throws {
        let server = try Self.start {
            $0.threads = 1
            $0.maxConnectionsPerThread = 1
        }
        defer { Self.stop(server) }
        let first = try TestClient(port: server.port)
        first.send("GET /a HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(first.response()?.status == 200)
        let second = try TestClient(port: server.port)
        let refused = try #require(second.response())
        #expect(refused.status == 503)
        #expect(refused.body == "\(HTTPError.tooManyConnections)")
        #expect(second.isClosedByServer())
    }

    @Test func stalledClient_times_out_withoutStallingOthers() throws {
        let server = try Self.start { $0.readTimeoutMilliseconds = 300 }
        defer { Self.stop(server) }
        let stalled = try TestClient(port: server.port)
        stalled.send("POST /x HTTP/1.1\r\nHost: t\r\nContent-Length: 10\r\n\r\nabc")
        for _ in 0..<20 {
            let other = try TestClient(port: server.port)
            other.send("GET /fast HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(other.response()?.status == 200)
        }
        let answer = try #require(stalled.response())
        #expect(answer.status == 408)
        #expect(answer.body == "\(HTTPError.requestTimeout)")
        #expect(stalled.isClosedByServer())
    }

    @Test func idleConnection_isClosed() throws {
        let server = try Self.start { $0.idleTimeoutMilliseconds = 200 }
        defer { Self.stop(server) }
        let client = try TestClient(port: server.port)
        client.send("GET /a HTTP/1.1\r\nHost: t\r\n\r\n")
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
        closing.send("GET /a HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        #expect(closing.response()?.status == 200)
        #expect(closing.isClosedByServer())
    }

    @Test func handlerTimeout_answers503() throws {
        let server = try Self.start { $0.handlerTimeoutMilliseconds = 50 }
        defer { Self.stop(server) }
        let client = try TestClient(port: server.port)
        client.send("GET /slow HTTP/1.1\r\nHost: t\r\n\r\n")
        let response = try #require(client.response())
        #expect(response.status == 503)
        #expect(response.body == "\(HTTPError.handlerTimeout)")
    }

    @Test func stop_finishesRequestsInFlight() throws {
        let server = try Self.start()
        let client = try TestClient(port: server.port)
        client.send("GET /slow HTTP/1.1\r\nHost: t\r\n\r\n")
        while server.requestsInFlight == 0 { usleepMilliseconds(5) }
        server.stop(gracePeriodMilliseconds: 2000)
        #expect(client.response()?.body == "slow done")
        server.waitUntilStopped()
        #expect(throws: (any Error).self) { try TestClient(port: server.port) }
    }

    /// Thousands of requests in one write are answered one after another in a loop (each answer
    /// once used to start the next request from inside the previous one's send, a stack frame per
    /// pipelined request, until the loop's thread overflowed its stack).
    @Test func pipelinedBurst_ofTenThousandRequests_isAnsweredInOrder() throws {
        let server = try Self.start()
        defer { Self.stop(server) }
        let client = try TestClient(port: server.port)
        let count = 10_000
        client.send(String(repeating: "GET /burst HTTP/1.1\r\nHost: t\r\n\r\n", count: count))
        var answered = 0
        while answered < count, let response = client.response(), response.body == "GET burst  " { answered += 1 }
        #expect(answered == count)
        client.send("GET /after HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(client.response()?.body == "GET after  ")
    }

    /// A client that sends its requests and then ends its stream still gets every answer.
    @Test func pipelinedRequests_thenHalfClose_areAllAnswered_thenClosed() throws {
        let server = try Self.start()
        defer { Self.stop(server) }
        let client = try TestClient(port: server.port)
        client.send("GET /slow HTTP/1.1\r\nHost: t\r\n\r\nGET /one HTTP/1.1\r\nHost: t\r\n\r\nGET /two HTTP/1.1\r\nHost: t\r\n\r\n")
        client.finishSending()
        #expect(client.response()?.body == "slow done")
        #expect(client.response()?.body == "GET one  ")
        #expect(client.response()?.body == "GET two  ")
        #expect(client.isClosedByServer())
    }

    /// A client that pipelines requests for large answers and never reads them: the server stops
    /// reading it while its unsent answers exceed the limit, so they never exceed the limit plus
    /// one answer, and other clients are still served.
    @Test func pipelinedClientThatNeverReads_buffersAtMostTheOutputLimitPlusOneAnswer() throws {
        let limit = 256 * 1024
        let server = try Self.start {
            $0.threads = 1
            $0.maxPendingOutputBytes = limit
        }
        defer { Self.stop(server) }
        let greedy = try TestClient(port: server.port)
        greedy.send("GET /big/100 HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(greedy.response()?.body.utf8.count == 100 * 1024)
        // 200 answers of 100 KiB: 20 MB if nothing held the connection back.
        greedy.send(String(repeating: "GET /big/100 HTTP/1.1\r\nHost: t\r\n\r\n", count: 200))
        // Served by the same (only) loop after the greedy client's requests were read.
        let other = try TestClient(port: server.port)
        other.send("GET /other HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(other.response()?.body == "GET other  ")
        let oneAnswer = 100 * 1024 + 100
        #expect(server.peakPendingOutputBytes <= limit + oneAnswer)
        #expect(server.peakPendingOutputBytes > 0)
    }

    /// A client that keeps sending pipelined requests without reading the answers: the server
    /// stops reading it, so its buffered input stays within the pipelining limit (plus one read).
    @Test func endlessPipelinedRequests_withoutReading_keepBufferedInputBounded() throws {
        let pipelined = 16 * 1024
        let server = try Self.start {
            $0.threads = 1
            $0.maxPendingOutputBytes = 128 * 1024
            $0.maxPipelinedBytes = pipelined
        }
        defer { Self.stop(server) }
        let greedy = try TestClient(port: server.port)
        greedy.send("GET /big/64 HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(greedy.response()?.status == 200)
        let request = Array("GET /big/64 HTTP/1.1\r\nHost: t\r\nX-Pad: \(String(repeating: "p", count: 4000))\r\n\r\n".utf8)
        var sent = 0
        // Until the socket takes no more (the server stopped reading), at most 1,000 requests.
        for _ in 0..<1000 {
            let taken = greedy.sendWithoutWaiting(request)
            sent += taken
            if taken < request.count { break }
        }
        #expect(sent > 0)
        let other = try TestClient(port: server.port)
        other.send("GET /other HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(other.response()?.body == "GET other  ")
        #expect(server.peakBufferedInputBytes <= pipelined + 64 * 1024)
        #expect(server.peakPendingOutputBytes <= 128 * 1024 + 64 * 1024 + 100)
    }

    /// Requests pipelined behind one whose answer takes a while are read only up to the
    /// pipelining limit meanwhile; the rest are read, and all answered in order, afterwards.
    @Test func requestsPipelinedBehindASlowOne_areReadUpToTheLimit_thenAllAnswered() throws {
        let pipelined = 16 * 1024
        let server = try Self.start { $0.maxPipelinedBytes = pipelined }
        defer { Self.stop(server) }
        let client = try TestClient(port: server.port)
        let padding = String(repeating: "p", count: 1000)
        let count = 300
        client.send("GET /slow HTTP/1.1\r\nHost: t\r\n\r\n" + (0..<count).map { "GET /r/\($0) HTTP/1.1\r\nHost: t\r\nX-Pad: \(padding)\r\n\r\n" }.joined())
        #expect(client.response()?.body == "slow done")
        var answered = 0
        while answered < count, let response = client.response(), response.body == "GET r|\(answered)  " { answered += 1 }
        #expect(answered == count)
        #expect(server.peakBufferedInputBytes <= pipelined + 64 * 1024)
    }

    @Test func expectContinue_gets100BeforeTheBodyIsSent_thenTheAnswer() throws {
        let server = try Self.start()
        defer { Self.stop(server) }
        let client = try TestClient(port: server.port)
        client.send("POST /upload HTTP/1.1\r\nHost: t\r\nX-Allow: 1\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n")
        let interim = try #require(client.response())
        #expect(interim.status == 100)
        client.send("hello")
        let final = try #require(client.response())
        #expect(final.status == 200)
        #expect(final.body == "POST upload  hello")
        // The next request on the connection expects again.
        client.send("POST /again HTTP/1.1\r\nHost: t\r\nX-Allow: 1\r\nExpect: 100-Continue\r\nContent-Length: 2\r\n\r\n")
        #expect(client.response()?.status == 100)
        client.send("ok")
        #expect(client.response()?.body == "POST again  ok")
    }

    @Test func expectContinue_refusedByTheHeadCheck_getsItsAnswerAtOnce_andIsClosed() throws {
        let server = try Self.start()
        defer { Self.stop(server) }
        let client = try TestClient(port: server.port)
        client.send("POST /upload HTTP/1.1\r\nHost: t\r\nX-Deny: 1\r\nExpect: 100-continue\r\nContent-Length: 5000\r\n\r\n")
        let answer = try #require(client.response())
        #expect(answer.status == 401)
        #expect(answer.headers["connection"] == "close")
        #expect(client.isClosedByServer())
    }

    @Test func expectContinue_withBodyOverTheLimit_gets413AtOnce() throws {
        let server = try Self.start { $0.maxBodyBytes = 1000 }
        defer { Self.stop(server) }
        let client = try TestClient(port: server.port)
        client.send("POST /upload HTTP/1.1\r\nHost: t\r\nX-Allow: 1\r\nExpect: 100-continue\r\nContent-Length: 1001\r\n\r\n")
        let answer = try #require(client.response())
        #expect(answer.status == 413)
        #expect(client.isClosedByServer())
    }

    @Test func head_getsTheHeadersOfGet_withoutTheBody() throws {
        let server = try Self.start()
        defer { Self.stop(server) }
        let client = try TestClient(port: server.port)
        client.send("HEAD /big/3 HTTP/1.1\r\nHost: t\r\n\r\nGET /next HTTP/1.1\r\nHost: t\r\n\r\n")
        let head = try #require(client.response(bodyless: true))
        #expect(head.status == 200)
        #expect(head.headers["content-length"] == "\(3 * 1024)")
        // The next answer follows the head directly: no body came between.
        #expect(client.response()?.body == "GET next  ")
    }

    @Test func http10KeepAlive_isAnsweredKeepAlive_andTheConnectionStaysOpen() throws {
        let server = try Self.start()
        defer { Self.stop(server) }
        let client = try TestClient(port: server.port)
        client.send("GET /a HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n")
        let first = try #require(client.response())
        #expect(first.headers["connection"]?.lowercased() == "keep-alive")
        client.send("GET /b HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        #expect(client.response()?.body == "GET b  ")
        // HTTP/1.1 keeps connections open without saying so.
        let modern = try TestClient(port: server.port)
        modern.send("GET /c HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(modern.response()?.headers["connection"] == nil)
    }

    @Test func manyConcurrentClients_onBothLoops() throws {
        let server = try Self.start()
        defer { Self.stop(server) }
        let clients = try (0..<50).map { _ in try TestClient(port: server.port) }
        for round in 0..<5 {
            for (index, client) in clients.enumerated() { client.send("GET /c\(index)/\(round) HTTP/1.1\r\nHost: t\r\n\r\n") }
            for (index, client) in clients.enumerated() { #expect(client.response()?.body == "GET c\(index)|\(round)  ") }
        }
    }

    /// Polls `condition` until it holds, for up to 5 s; whether it came to hold.
    static func eventually(_ condition: () -> Bool) -> Bool {
        for _ in 0..<5_000 {
            if condition() { return true }
            usleep(1_000)
        }
        return condition()
    }

    /// Not only with `Expect: 100-continue`: the head of any request whose body has not all
    /// arrived goes to the head check first, and a refusal is answered at once, its body unread.
    @Test func requestRefusedByItsHead_isAnsweredBeforeItsBodyArrives_andClosed() throws {
        let server = try Self.start()
        defer { Self.stop(server) }
        let client = try TestClient(port: server.port)
        client.send("POST /upload HTTP/1.1\r\nHost: t\r\nX-Deny: 1\r\nContent-Length: 1000000\r\n\r\n" + String(repeating: "x", count: 100))
        let answer = try #require(client.response())
        #expect(answer.status == 401)
        #expect(answer.headers["connection"] == "close")
        #expect(client.isClosedByServer())
        #expect(server.bufferedBodyBytes == 0)
    }

    /// The bodies held at once, all connections together, stay within `maxBufferedBodyBytes`: the
    /// body bytes received are reserved as they arrive, a read that would pass the budget is
    /// answered 503 with `Retry-After` (the rest of its body never read), and the budget is given
    /// back once a request is answered.
    @Test func bodiesHeldAtOnce_stayWithinTheBudget_acrossConnections() throws {
        let server = try Self.start {
            $0.maxBodyBytes = 8_000
            $0.maxBufferedBodyBytes = 10_000
        }
        defer { Self.stop(server) }
        let first = try TestClient(port: server.port)
        first.send("POST /first HTTP/1.1\r\nHost: t\r\nContent-Length: 8000\r\n\r\n" + String(repeating: "a", count: 7_000))
        #expect(Self.eventually { server.bufferedBodyBytes == 7_000 })
        let second = try TestClient(port: server.port)
        second.send("POST /second HTTP/1.1\r\nHost: t\r\nContent-Length: 5000\r\n\r\n" + String(repeating: "b", count: 3_500))
        let busy = try #require(second.response())
        #expect(busy.status == 503)
        #expect(busy.headers["retry-after"] == "1")
        #expect(second.isClosedByServer())
        #expect(server.counters.bodyBudgetRefusals == 1)
        #expect(Self.eventually { server.bufferedBodyBytes == 7_000 })
        first.send(String(repeating: "a", count: 1_000))
        #expect(first.response()?.body == "POST first  " + String(repeating: "a", count: 8_000))
        #expect(Self.eventually { server.bufferedBodyBytes == 0 })
        let third = try TestClient(port: server.port)
        third.send("POST /third HTTP/1.1\r\nHost: t\r\nContent-Length: 5000\r\n\r\n" + String(repeating: "c", count: 5_000))
        #expect(third.response()?.status == 200)
        #expect(server.counters.bodyBudgetRefusals == 1)
    }

    /// A head alone reserves nothing of the bodies' budget: heads announcing bodies that together
    /// pass it, none of their bytes sent, leave a small whole request its room; the bytes those
    /// bodies then send are what counts, and the one that passes the budget is answered 503.
    @Test func headsWithoutTheirBodies_reserveNothing_theBytesSentAreCounted() throws {
        let server = try Self.start {
            $0.maxBodyBytes = 8_000
            $0.maxBufferedBodyBytes = 10_000
        }
        defer { Self.stop(server) }
        // 100 Continue says each head has been checked (and, before, reserved its announced length).
        let heads = try (0..<3).map { index in
            let client = try TestClient(port: server.port)
            client.send("POST /head\(index) HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 5000\r\n\r\n")
            return client
        }
        for head in heads { #expect(head.response()?.status == 100) }
        #expect(server.bufferedBodyBytes == 0)
        let small = try TestClient(port: server.port)
        small.send("POST /small HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nhello")
        #expect(small.response()?.body == "POST small  hello")
        heads[0].send(String(repeating: "a", count: 4_000))
        #expect(Self.eventually { server.bufferedBodyBytes == 4_000 })
        heads[1].send(String(repeating: "b", count: 4_000))
        #expect(Self.eventually { server.bufferedBodyBytes == 8_000 })
        heads[2].send(String(repeating: "c", count: 4_000))
        #expect(heads[2].response()?.status == 503)
        #expect(server.counters.bodyBudgetRefusals == 1)
        heads[0].send(String(repeating: "a", count: 1_000))
        #expect(heads[0].response()?.body == "POST head0  " + String(repeating: "a", count: 5_000))
        #expect(Self.eventually { server.bufferedBodyBytes == 4_000 })
    }

    /// RFC 9112 §3.2 and RFC 9110 §5.5 over the wire: answered 400 and closed.
    @Test(arguments: [
        "GET /x HTTP/1.1\r\n\r\n", "GET /x HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", "GET /x HTTP/1.1\r\nHost: a\r\nX: a\rb\r\n\r\n",
        "GET /x HTTP/1.1\r\nHost: a\r\nX: a\u{0}b\r\n\r\n",
    ])
    func laxHeaders_areRefused400(request: String) throws {
        let server = try Self.start()
        defer { Self.stop(server) }
        let client = try TestClient(port: server.port)
        client.send(request)
        #expect(client.response()?.status == 400)
        #expect(client.isClosedByServer())
    }
}

func usleepMilliseconds(_ milliseconds: Int) {
    var time = timespec(tv_sec: 0, tv_nsec: milliseconds * 1_000_000)
    nanosleep(&time, nil)
}
