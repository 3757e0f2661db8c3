import Foundation
import MastheadHTTP
import MastheadJSON
@testable import MastheadService
import MastheadTestSupport
import Testing

/// The support console's three files: served from the binary without a token, GET and HEAD only,
/// each with the content type and the security and cache header fields the page relies on.
struct ConsoleRouteTests {
    /// Each console path, its source file and the content type it is served with.
    static let files: [(path: String, file: String, contentType: String)] = [
        ("/console", "console.html", "text/html; charset=utf-8"),
        ("/console/console.js", "console.js", "text/javascript; charset=utf-8"),
        ("/console/console.css", "console.css", "text/css; charset=utf-8"),
    ]

    /// The header fields every console file is answered with, besides its content type.
    static let securityHeaders: [String: String] = [
        "content-security-policy": "default-src 'self'; img-src 'self' blob:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
        "x-content-type-options": "nosniff",
        "referrer-policy": "no-referrer",
        "cache-control": "no-store",
    ]

    /// A console file's source, as the page's author wrote it.
    static func source(_ file: String) throws -> String {
        try String(contentsOf: ServiceHarness.root.appendingPathComponent("Sources/CConsolePage/\(file)"), encoding: .utf8)
    }

    @Test(arguments: files.map(\.path))
    func consoleFile_isServedWithoutToken_withItsContentType_andTheSecurityHeaders(path: String) throws {
        let file = try #require(Self.files.first { $0.path == path })
        let harness = try ServiceHarness()
        defer { harness.close() }
        let server = try ServiceHTTPTests.serve(harness)
        defer { ServiceHTTPTests.stop(server) }
        let client = try TestClient(port: server.port)
        let answer = try #require(client.request("GET", path))
        #expect(answer.status == 200)
        #expect(answer.headers["content-type"] == file.contentType)
        for (name, value) in Self.securityHeaders { #expect(answer.headers[name] == value, "\(path): \(name)") }
        #expect(answer.body == (try Self.source(file.file)), "\(path) is not Sources/CConsolePage/\(file.file)")
        client.send("HEAD \(path) HTTP/1.1\r\nHost: test\r\n\r\n")
        let head = try #require(client.response(bodyless: true))
        #expect(head.status == 200)
        #expect(head.headers["content-type"] == file.contentType)
        #expect(head.headers["content-security-policy"] == Self.securityHeaders["content-security-policy"])
        #expect(head.headers["content-length"] == String(answer.body.utf8.count))
        #expect(head.body.isEmpty)
    }

    /// Another method on a console path is looked up as a path with no route: 401 without a
    /// token, 404 with one; nothing is served.
    @Test(arguments: files.map(\.path))
    func consoleFile_refusesPostPutAndDelete(path: String) throws {
        let harness = try ServiceHarness()
        defer { harness.close() }
        for method in ["POST", "PUT", "DELETE"] {
            #expect(harness.call(method, path, token: nil).status == 401, "\(method) \(path)")
            #expect(harness.call(method, path, token: "admin-token").status == 404, "\(method) \(path)")
        }
    }

    /// The console signs in with the admin token alone: it is taken wherever the API token is,
    /// while the API token stays refused on an admin route and a wrong token is 401.
    @Test func adminToken_isAcceptedOnAPIRoutes_andTheAPITokenStillRefusedOnAdminRoutes() throws {
        let harness = try ServiceHarness()
        defer { harness.close() }
        let receipt = try ServiceHarness.example("table-6-1")
        #expect(harness.call("POST", "/v1/users/alice/receipts", token: "admin-token", body: receipt).status == 200)
        let entitlements = harness.call("GET", "/v1/users/alice/entitlements", token: "admin-token")
        #expect(entitlements.status == 200)
        #expect(entitlements.json?["user_id"]?.string == "alice")
        #expect(harness.call("GET", "/metrics", token: "admin-token").status == 200)
        #expect(harness.call("GET", "/v1/users/alice/grants", token: "api-token").status == 403)
        #expect(harness.call("GET", "/v1/users/alice/grants", token: "admin-token").status == 200)
        #expect(harness.call("GET", "/v1/users/alice/entitlements", token: "wrong-token").status == 401)
        #expect(harness.call("GET", "/v1/users/alice/entitlements", token: nil).status == 401)
        // With the admin token, a path with no route is 404, as with the API token.
        #expect(harness.call("GET", "/v1/no/such/route", token: "admin-token").status == 404)
    }
}
