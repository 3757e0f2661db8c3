import Foundation
import Masthead
import MastheadJSON
@testable import MastheadService
import MastheadStorage
import MastheadTestSupport
import Synchronization
import Testing

/// `GET /v1/notifications/rejected` over a live server on port 0: the admin token's, newest first,
/// bodies only when asked.
struct RejectedNotificationRouteTests {
    static let admin = ["Authorization": "Bearer admin-token"]

    /// Records a rejected notification through the service's group commit and waits for it.
    static func reject(_ harness: ServiceHarness, reason: String, body: [UInt8]) throws -> Int64 {
        let outcome = Mutex<Result<Int64, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        harness.service.recordRejectedNotification(kind: .signed, reason: reason, body: body) { result in
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        return try outcome.withLock { $0! }.get()
    }

    static func entries(_ response: TestClient.Response?) -> [JSONValue]? {
        AppAccountTokenRouteTests.json(response)?["rejectedNotifications"]?.elements.map { $0 }
    }

    @Test func list_isNewestFirst_withBodiesOnlyWhenAsked() throws {
        try AppAccountTokenRouteTests.withServer { client, harness in
            let empty = try #require(client.request("GET", "/v1/notifications/rejected", headers: Self.admin))
            #expect(empty.status == 200)
            #expect(empty.body == #"{"rejectedNotifications":[]}"#)
            let body: [UInt8] = Array(#"{"signedPayload":"x.y.z"}"#.utf8) + [0xFF]
            let first = try Self.reject(harness, reason: "alg must be ES256, not none", body: body)
            harness.setNow("2020-07-02T00:00:01Z")
            let second = try Self.reject(harness, reason: "the signature does not verify", body: [1, 2, 3])
            let list = try #require(client.request("GET", "/v1/notifications/rejected", headers: Self.admin))
            #expect(list.status == 200)
            #expect(list.body == #"{"rejectedNotifications":[{"id":\#(second),"received":"2020-07-02T00:00:01Z","reason":"the signature does not verify","kind":"signed","bodyBytes":3},{"id":\#(first),"received":"2020-07-02T00:00:00Z","reason":"alg must be ES256, not none","kind":"signed","bodyBytes":\#(body.count)}]}"#)
            let withBodies = try #require(Self.entries(client.request("GET", "/v1/notifications/rejected?limit=2&bodies=true", headers: Self.admin)))
            #expect(withBodies.compactMap { $0["bodyBase64"]?.string }.map { Data(base64Encoded: $0).map(Array.init) } == [[1, 2, 3], body])
            let one = try #require(Self.entries(client.request("GET", "/v1/notifications/rejected?limit=1&bodies=false", headers: Self.admin)))
            #expect(one.count == 1)
            #expect(one.first?["id"]?.double == Double(second))
            #expect(one.first?["bodyBase64"] == nil)
            // Never applied: no notification stored, no user.
            #expect(harness.call("GET", "/v1/refresh-due?within=1000d").json?["subscriptions"]?.count == 0)
        }
    }

    @Test func list_needsTheAdminToken() throws {
        try AppAccountTokenRouteTests.withServer { client, _ in
            #expect(client.request("GET", "/v1/notifications/rejected")?.status == 401)
            let api = client.request("GET", "/v1/notifications/rejected", headers: ["Authorization": "Bearer api-token"])
            #expect(api?.status == 403)
            #expect(AppAccountTokenRouteTests.code(api) == "forbidden")
            #expect(AppAccountTokenRouteTests.json(api)?["error"]?["message"]?.string == "this route needs the admin token")
            #expect(client.request("POST", "/v1/notifications/rejected", headers: Self.admin)?.status == 405)
        }
    }

    @Test(arguments: ["0", "1001", "-1", "+5", "ten", "", "1.5", "99999999999999999999"])
    func list_withALimitOutOfRange_is400(limit: String) throws {
        try AppAccountTokenRouteTests.withServer { client, _ in
            let answer = client.request("GET", "/v1/notifications/rejected?limit=\(limit)", headers: Self.admin)
            #expect(answer?.status == 400, "limit=\(limit)")
            #expect(AppAccountTokenRouteTests.code(answer) == "invalid_limit")
        }
    }

    @Test(arguments: ["yes", "1", "TRUE", ""])
    func list_withBodiesNeitherTrueNorFalse_is400(bodies: String) throws {
        try AppAccountTokenRouteTests.withServer { client, _ in
            let answer = client.request("GET", "/v1/notifications/rejected?bodies=\(bodies)", headers: Self.admin)
            #expect(answer?.status == 400, "bodies=\(bodies)")
            #expect(AppAccountTokenRouteTests.code(answer) == "invalid_bodies")
        }
    }

    @Test func list_limits_1And1000_areAccepted() throws {
        try AppAccountTokenRouteTests.withServer { client, _ in
            for limit in ["1", "1000"] {
                #expect(client.request("GET", "/v1/notifications/rejected?limit=\(limit)", headers: Self.admin)?.status == 200)
            }
        }
    }
}
