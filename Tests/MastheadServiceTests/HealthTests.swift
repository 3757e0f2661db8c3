import Foundation
import MastheadJSON
import MastheadService
import MastheadSQLite
import Testing

/// `/health` tells whether the database can be written: a failed write makes it 503 until a write succeeds.
struct HealthTests {
    static let notification = ServiceRouterTests.notification(
        "DID_RENEW", transactions: [ServiceRouterTests.transaction("h1", original: "h1", from: "2020-06-17T12:00:00Z", to: "2020-07-17T12:00:00Z")])

    @Test func health_isDegraded_whileWritesFail_andRecovers() throws {
        let harness = try ServiceHarness()
        defer { harness.close() }
        #expect(harness.call("GET", "/health", token: nil).body == #"{"status":"ok"}"#)
        // Another connection makes every notification write fail, as a full disk would.
        let other = try Database(path: harness.path)
        try other.execute("CREATE TRIGGER refuse BEFORE INSERT ON notifications BEGIN SELECT RAISE(ABORT, 'no space left (test)'); END")
        #expect(harness.call("POST", "/v1/notifications/app-store", token: nil, json: Self.notification).status == 503)
        let degraded = harness.call("GET", "/health", token: nil)
        #expect(degraded.status == 503)
        #expect(degraded.json?["status"]?.string == "degraded")
        #expect(degraded.json?["database"]?.string?.contains("no space left (test)") == true)
        #expect(!degraded.body.contains("shared-secret"))
        #expect(!degraded.body.contains("h1"))
        try other.execute("DROP TRIGGER refuse")
        #expect(harness.call("POST", "/v1/notifications/app-store", token: nil, json: Self.notification).status == 200)
        #expect(harness.call("GET", "/health", token: nil).body == #"{"status":"ok"}"#)
    }
}
