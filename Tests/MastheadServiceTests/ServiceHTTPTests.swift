import Foundation
import MastheadHTTP
import MastheadService
import MastheadTestSupport
import Testing

/// The service's HTTP manners: the Authorization scheme, HEAD, and `Expect: 100-continue` over a
/// live server on port 0.
struct ServiceHTTPTests {
    /// A server on port 0 in front of the harness's router (the harness closes the service).
    static func serve(_ harness: ServiceHarness) throws -> ServiceProcess {
        var configuration = harness.service.configuration.http
        configuration.port = 0
        return try ServiceProcess.serving(harness.router, http: configuration)
    }

    static func stop(_ process: ServiceProcess) {
        process.stop(gracePeriodMilliseconds: 1000)
        process.waitUntilStopped()
    }

    /// RFC 9110 §11.1: the scheme is case-insensitive; the token may follow one or more spaces.
    @Test(arguments: ["Bearer api-token", "bearer api-token", "BEARER api-token", "BeArEr   api-token"])
    func bearerScheme_inAnyCase_andAfterSeveralSpaces_isAccepted(authorization: String) throws {
        let harness = try ServiceHarness()
        defer { harness.close() }
        #expect(harness.call("GET", "/v1/publications/the-monthly/issues", authorization: authorization).status == 200)
    }

    @Test(arguments: ["Bearer api-tokenx", "Bearer api-toke", "Bearer  ", "Bearer", "Bearerapi-token", "Basic api-token", "api-token", "Bearer\tapi-token"])
    func wrongCredentials_are401(authorization: String) throws {
        let harness = try ServiceHarness()
        defer { harness.close() }
        #expect(harness.call("GET", "/v1/publications/the-monthly/issues", authorization: authorization).status == 401)
    }

    @Test func headCheck_refusesWithoutToken_butLetsNotificationsAndHealthThrough() throws {
        let harness = try ServiceHarness()
        defer { harness.close() }
        let check = harness.router.headCheck
        let token = [("Authorization", "bearer api-token")]
        #expect(check(HTTPRequest(method: "POST", target: "/v1/users/u/receipts", headers: token)) == nil)
        #expect(check(HTTPRequest(method: "POST", target: "/v1/users/u/receipts"))?.status == 401)
        #expect(check(HTTPRequest(method: "POST", target: "/v1/users/u/receipts", headers: [("Authorization", "Bearer wrong")]))?.status == 401)
        #expect(check(HTTPRequest(method: "PUT", target: "/v1/publications/the-monthly/issues/x", headers: [("Authorization", "Bearer admin-token")])) == nil)
        #expect(check(HTTPRequest(method: "POST", target: "/v1/notifications/app-store")) == nil)
        #expect(check(HTTPRequest(method: "GET", target: "/health")) == nil)
    }

    @Test func expectContinue_onReceipts_gets100_thenTheAnswer() throws {
        let harness = try ServiceHarness()
        defer { harness.close() }
        let server = try Self.serve(harness)
        defer { Self.stop(server) }
        let receipt = try ServiceHarness.example("table-6-1")
        let client = try TestClient(port: server.port)
        client.send("POST /v1/users/alice/receipts HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer api-token\r\nExpect: 100-continue\r\nContent-Length: \(receipt.count)\r\n\r\n")
        // Nothing of the body has been sent yet.
        #expect(client.response()?.status == 100)
        client.send(receipt)
        let answer = try #require(client.response())
        #expect(answer.status == 200)
        #expect(answer.body.contains(#""user_id":"alice""#))
    }

    @Test func expectContinue_onNotifications_gets100_theirPasswordIsInTheBody() throws {
        let harness = try ServiceHarness()
        defer { harness.close() }
        let server = try Self.serve(harness)
        defer { Self.stop(server) }
        let transaction = ServiceRouterTests.transaction("n2", original: "n1", from: "2020-03-20T12:00:00Z", to: "2020-04-20T12:00:00Z")
        let body = Array(ServiceRouterTests.notification("DID_RENEW", transactions: [transaction]).utf8)
        let client = try TestClient(port: server.port)
        client.send("POST /v1/notifications/app-store HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: \(body.count)\r\n\r\n")
        #expect(client.response()?.status == 100)
        client.send(body)
        #expect(client.response()?.status == 200)
    }

    @Test func expectContinue_withWrongToken_gets401WithoutSendingTheBody() throws {
        let harness = try ServiceHarness()
        defer { harness.close() }
        let server = try Self.serve(harness)
        defer { Self.stop(server) }
        let client = try TestClient(port: server.port)
        client.send("POST /v1/users/alice/receipts HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer wrong\r\nExpect: 100-continue\r\nContent-Length: 4000\r\n\r\n")
        let answer = try #require(client.response())
        #expect(answer.status == 401)
        #expect(answer.body.contains("unauthorized"))
        #expect(client.isClosedByServer())
        #expect(harness.call("GET", "/v1/users/alice/entitlements").status == 404)
    }

    @Test func expectContinue_withBodyOverTheLimit_gets413WithoutSendingTheBody() throws {
        let harness = try ServiceHarness { $0.http.maxBodyBytes = 10_000 }
        defer { harness.close() }
        let server = try Self.serve(harness)
        defer { Self.stop(server) }
        let client = try TestClient(port: server.port)
        client.send("POST /v1/users/alice/receipts HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer api-token\r\nExpect: 100-continue\r\nContent-Length: 10001\r\n\r\n")
        let answer = try #require(client.response())
        #expect(answer.status == 413)
        #expect(client.isClosedByServer())
    }

    /// The HTTP layer's errors are answered in the service's error shape, and the connection closed.
    @Test(arguments: [
        ("GARBAGE\r\n\r\n", 400, #"{"error":{"code":"bad_request","message":"malformed request line"}}"#),
        ("GET /health HTTP/2.0\r\n\r\n", 505, #"{"error":{"code":"http_version_not_supported","message":"only HTTP/1.1 and HTTP/1.0 are served"}}"#),
        ("POST /v1/users/u1/receipts HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n", 501,
         #"{"error":{"code":"not_implemented","message":"Transfer-Encoding is not supported; send Content-Length"}}"#),
        ("GET /health HTTP/1.1\r\nHost: t\r\n" + String(repeating: "H: v\r\n", count: 1001) + "\r\n", 431,
         #"{"error":{"code":"request_header_fields_too_large","message":"more than 1000 header fields"}}"#),
    ])
    func httpErrors_areAnsweredInTheServiceErrorShape(request: String, status: Int, body: String) throws {
        let harness = try ServiceHarness()
        defer { harness.close() }
        let server = try Self.serve(harness)
        defer { Self.stop(server) }
        let client = try TestClient(port: server.port)
        client.send(request)
        let answer = try #require(client.response())
        #expect(answer.status == status)
        #expect(answer.headers["content-type"] == "application/json")
        #expect(answer.body == body)
        #expect(client.isClosedByServer())
    }

    /// Every GET route answers HEAD with GET's status and headers, Content-Length included, and no body.
    @Test func head_onEveryGetRoute_answersLikeGet_withoutBody() throws {
        let harness = try ServiceHarness()
        defer { harness.close() }
        #expect(harness.call("POST", "/v1/users/alice/receipts", body: try ServiceHarness.example("table-6-1")).status == 200)
        let server = try Self.serve(harness)
        defer { Self.stop(server) }
        let client = try TestClient(port: server.port)
        let authorization = ["Authorization": "Bearer api-token"]
        let targets = [
            "/health", "/v1/users/alice/entitlements?at=2020-07-02T00:00:00Z", "/v1/users/alice/issues/the-monthly/2020-06?at=2020-07-02T00:00:00Z",
            "/v1/users/alice/issues/the-monthly/1999-01", "/v1/publications/the-monthly/issues", "/v1/refresh-due?within=3d", "/metrics",
        ]
        for target in targets {
            let get = try #require(client.request("GET", target, headers: authorization))
            client.send("HEAD \(target) HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer api-token\r\n\r\n")
            let head = try #require(client.response(bodyless: true))
            #expect(head.status == get.status, "\(target)")
            #expect(head.headers["content-type"] == get.headers["content-type"], "\(target)")
            // The metrics count the requests themselves, so their length changes from one to the next.
            if target != "/metrics" { #expect(head.headers["content-length"] == get.headers["content-length"], "\(target)") }
        }
        // No body followed the last HEAD answer.
        #expect(client.request("GET", "/health")?.body == #"{"status":"ok"}"#)
        let unauthorized = try TestClient(port: server.port)
        unauthorized.send("HEAD /v1/publications/the-monthly/issues HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(unauthorized.response(bodyless: true)?.status == 401)
    }

    /// Without `Expect: 100-continue` too, a request the route refuses from its head (the token,
    /// no route, the method, the admin token) is answered at once, before its body is read, and
    /// the connection is closed.
    @Test(arguments: [
        ("POST /v1/users/alice/receipts", "Bearer wrong", 401),
        ("POST /v1/no/such/route", "Bearer api-token", 404),
        ("PUT /v1/users/alice/receipts", "Bearer api-token", 405),
        ("PUT /v1/publications/the-monthly/issues/x", "Bearer api-token", 403),
    ])
    func bodyTheRouteRefuses_isAnsweredBeforeItIsRead(line: String, authorization: String, status: Int) throws {
        let harness = try ServiceHarness()
        defer { harness.close() }
        let process = try Self.serve(harness)
        defer { Self.stop(process) }
        let server = process.server
        let client = try TestClient(port: server.port)
        client.send("\(line) HTTP/1.1\r\nHost: t\r\nAuthorization: \(authorization)\r\nContent-Length: 9000\r\n\r\n{")
        let answer = try #require(client.response())
        #expect(answer.status == status)
        #expect(client.isClosedByServer())
        #expect(server.bufferedBodyBytes == 0)
    }

    /// Past the bodies' budget a notification is answered 503 `server_busy` with `Retry-After`
    /// before the rest of its body is read (Apple sends it again), in the service's error shape.
    @Test func bodyPastTheBudget_is503ServerBusy_withRetryAfter() throws {
        let harness = try ServiceHarness { configuration in
            configuration.http.maxBodyBytes = 8_000
            configuration.http.maxBufferedBodyBytes = 10_000
        }
        defer { harness.close() }
        let process = try Self.serve(harness)
        defer { Self.stop(process) }
        let server = process.server
        let receipt = try TestClient(port: server.port)
        receipt.send("POST /v1/users/alice/receipts HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer api-token\r\nContent-Length: 8000\r\n\r\n{" + String(repeating: " ", count: 6_999))
        var waited = 0
        while server.bufferedBodyBytes != 7_000 && waited < 5_000 {
            usleep(1_000)
            waited += 1
        }
        #expect(server.bufferedBodyBytes == 7_000)
        let notification = try TestClient(port: server.port)
        notification.send("POST /v1/notifications/app-store HTTP/1.1\r\nHost: t\r\nContent-Length: 5000\r\n\r\n{" + String(repeating: " ", count: 3_499))
        let busy = try #require(notification.response())
        #expect(busy.status == 503)
        #expect(busy.headers["retry-after"] == "1")
        #expect(busy.body.contains(#""code":"server_busy""#))
        #expect(notification.isClosedByServer())
    }
}
