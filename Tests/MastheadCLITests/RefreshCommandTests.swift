import Foundation
import Glibc
import MastheadHTTP
import MastheadTestSupport
import Testing

/// `masthead refresh` beside a running `masthead serve` on the same database, and the settings it needs.
struct RefreshCommandTests {
    @Test func refresh_needsOnlyTheSharedSecret_notTheCallerTokens() throws {
        let database = ServeCommandTests.temporaryDatabase()
        defer { ServeCommandTests.remove(database) }
        let arguments = ["refresh", "--catalog", "Catalog/the-monthly", "--database", database, "--within", "3d"]
        let outcome = try Tool.run(arguments, environment: ["MASTHEAD_APP_STORE_SHARED_SECRET": "shared-secret"])
        #expect(outcome.status == 0, "\(outcome.errors)")
        #expect(
            outcome.output
                == "refresh: 0 due, 0 refreshed (0 by the App Store Server API, 0 by verifyReceipt), 0 without a stored receipt, 0 not polled: no App Store Server API key, 0 failed\n"
        )
        let missing = try Tool.run(arguments, environment: [:])
        #expect(missing.status == 78)
        #expect(missing.errors.contains("MASTHEAD_APP_STORE_SHARED_SECRET is not set"))
    }

    /// The renewal `refresh` stores is answered by the running service at once: a paying reader
    /// is not refused until a restart.
    @Test func refresh_besideRunningServe_isAnsweredByServe_atOnce() throws {
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let apple = try FakeApple.start(now: now)
        defer {
            apple.stop(gracePeriodMilliseconds: 100)
            apple.waitUntilStopped()
        }
        let database = ServeCommandTests.temporaryDatabase()
        defer { ServeCommandTests.remove(database) }
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = folder.appendingPathComponent("config.json")
        try Data(#"{"verifyReceiptProductionURL": "http://127.0.0.1:\#(apple.port)/verifyReceipt", "verifyReceiptAllowHTTP": true}"#.utf8).write(to: config)
        let server = try ServerProcess(database: database)
        let client = try TestClient(port: server.port)
        let authorization = ["Authorization": "Bearer api-token"]
        let receipt = #"{"status": 0, "latest_receipt": "OLD", "latest_receipt_info": [\#(FakeApple.firstMonth(now: now))]}"#
        #expect(client.request("POST", "/v1/users/pat/receipts", headers: authorization, body: Array(receipt.utf8))?.status == 200)
        let later = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(now + 2 * FakeApple.day) / 1000))
        func transactions() -> Int {
            let body = client.request("GET", "/v1/users/pat/entitlements?at=\(later)", headers: authorization)?.body ?? ""
            return body.components(separatedBy: #""transactionId""#).count - 1
        }
        #expect(transactions() == 1)
        let refresh = try Tool.run(
            ["refresh", "--catalog", "Catalog/the-monthly", "--database", database, "--config", config.path, "--within", "3d"],
            environment: ServerProcess.environment)
        #expect(refresh.status == 0, "\(refresh.errors)")
        #expect(refresh.output.hasPrefix("refresh: 1 due, 1 refreshed"))
        #expect(transactions() == 2)
        let stopped = server.stop(signal: SIGTERM)
        #expect(stopped.status == 0, "\(stopped.errors)")
    }
}
