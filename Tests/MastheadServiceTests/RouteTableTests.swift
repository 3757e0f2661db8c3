import MastheadHTTP
import MastheadJSON
@testable import MastheadService
import Testing

/// The route table drives the metrics labels and the `Expect: 100-continue` check.
struct RouteTableTests {
    /// A request to the route: its first method, the template's variables replaced by example ids,
    /// and the token its access needs.
    static func call(_ harness: ServiceHarness, _ route: Route) -> ServiceHarness.Answer {
        let target = OpenAPIDocumentTests.target(route.path)
        return harness.call(route.methods[0], target, token: route.access == .adminToken ? "admin-token" : "api-token", json: "{}")
    }

    /// The `route` labels of `masthead_requests_total`.
    static func labels(_ harness: ServiceHarness) -> Set<String> {
        let metrics = harness.call("GET", "/metrics").body
        var labels: Set<String> = []
        for line in metrics.split(separator: "\n") where line.hasPrefix("masthead_requests_total{route=\"") {
            labels.insert(String(line.dropFirst("masthead_requests_total{route=\"".count).prefix { $0 != "\"" }))
        }
        return labels
    }

    @Test func metrics_countEveryRoute_underItsLabel() throws {
        let harness = try ServiceHarness()
        defer { harness.close() }
        for route in ServiceRouter.routes { _ = Self.call(harness, route) }
        #expect(Self.labels(harness) == Set(ServiceRouter.routes.map(\.label)))
    }

    /// A path that fits no template is counted as `other`, even when it starts like a route's.
    @Test(arguments: ["/v1/users/u1/files/the-monthly/2020-01", "/v1/notifications/play-store", "/v1/publications/the-monthly/covers"])
    func metrics_countAPathWithNoRoute_asOther(target: String) throws {
        let harness = try ServiceHarness()
        defer { harness.close() }
        #expect(harness.call("GET", target).status == 404)
        #expect(Self.labels(harness) == ["other"])
    }

    /// Without a token, a request expecting `100 Continue` may send its body exactly where its
    /// route needs no token; with the token, everywhere.
    @Test func headCheck_letsTheBodyCome_whereTheRouteNeedsNoToken() throws {
        let harness = try ServiceHarness()
        defer { harness.close() }
        for route in ServiceRouter.routes {
            let target = OpenAPIDocumentTests.target(route.path)
            let anonymous = harness.router.headCheck(HTTPRequest(method: route.methods[0], target: target))
            #expect((anonymous == nil) == !route.access.needsToken, "\(route.path)")
            #expect(anonymous.map { $0.status == 401 } ?? true, "\(route.path)")
            let token = route.access == .adminToken ? "admin-token" : "api-token"
            #expect(harness.router.headCheck(HTTPRequest(method: route.methods[0], target: target, headers: [("Authorization", "Bearer \(token)")])) == nil)
        }
    }

    struct DiskFull: Error, CustomStringConvertible {
        var description: String { "the disk is full" }
    }

    static let errors: [(error: ServiceError, status: Int, body: String, allow: String?)] = [
        (.methodNotAllowed(allowed: ["GET"]), 405, #"{"error":{"code":"method_not_allowed","message":"use GET"}}"#, "GET, HEAD"),
        (.methodNotAllowed(allowed: ["POST"]), 405, #"{"error":{"code":"method_not_allowed","message":"use POST"}}"#, "POST"),
        (.noRoute(method: "GET", path: "/v1/nowhere"), 404, #"{"error":{"code":"not_found","message":"no route for GET /v1/nowhere"}}"#, nil),
        (.storeUnavailable(DiskFull()), 503, #"{"error":{"code":"store_unavailable","message":"the disk is full"}}"#, nil),
        (.notStored("issue", DiskFull()), 503,
         #"{"error":{"code":"store_unavailable","message":"the issue could not be stored: the disk is full"}}"#, nil),
        (.invalidPathIdentifier(.user, rule: "is empty"), 400, #"{"error":{"code":"invalid_user_id","message":"the user id is empty"}}"#, nil),
        (.http(.bodyTooLarge(limit: 10)), 413, #"{"error":{"code":"content_too_large","message":"the body is larger than 10 bytes"}}"#, nil),
        (.http(.invalidContentLength("x")), 400, #"{"error":{"code":"bad_request","message":"invalid Content-Length 'x'"}}"#, nil),
    ]

    /// Every error is answered `{"error": {"code", "message"}}` with its status; a 405 says what is
    /// allowed; the HTTP layer's errors close the connection.
    @Test(arguments: errors)
    func serviceError_isRenderedInTheErrorShape(expected: (error: ServiceError, status: Int, body: String, allow: String?)) {
        let response = expected.error.response
        #expect(response.status == expected.status)
        #expect(String(decoding: response.body, as: UTF8.self) == expected.body)
        #expect(response.headers.first { $0.name == "Content-Type" }?.value == "application/json")
        #expect(response.headers.first { $0.name == "Allow" }?.value == expected.allow)
        let isHTTPError = if case .http = expected.error { true } else { false }
        #expect(response.closeConnection == isHTTPError)
    }
}
