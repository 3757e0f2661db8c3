import Foundation
import Glibc
import MastheadHTTP
import MastheadSQLite
import MastheadStorage
import MastheadTestSupport
import Synchronization
import Testing

/// `masthead serve` as a process: start-up, configuration errors, live HTTP, graceful stop,
/// restart, and no acknowledged notification lost to SIGKILL.
struct ServeCommandTests {
    static func temporaryDatabase() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("masthead-serve-\(UUID().uuidString).sqlite").path
    }

    static func remove(_ path: String) { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }

    static func notification(_ index: Int) -> [UInt8] {
        let purchase = 1_582_200_000_000 + Int64(index) * 1000
        return Array(#"""
            {"notification_type": "DID_RENEW", "password": "shared-secret", "environment": "PROD", "unified_receipt": {"status": 0, "environment": "Production",
             "latest_receipt_info": [{"transaction_id": "k\#(index)", "original_transaction_id": "o\#(index)", "product_id": "com.example.monthly",
             "purchase_date_ms": "\#(purchase)", "expires_date_ms": "\#(purchase + 2_592_000_000)"}]}}
            """#.utf8)
    }

    @Test func serveHelp_documentsEverySetting() throws {
        let help = try Tool.run(["serve", "--help"])
        #expect(help.status == 0)
        for setting in ["--catalog", "--database", "--host", "--port", "--config", "maxBodyBytes", "readTimeoutMilliseconds", "restore",
                        "verifyReceiptSandboxURL", "MASTHEAD_API_TOKEN", "MASTHEAD_ADMIN_TOKEN", "MASTHEAD_APP_STORE_SHARED_SECRET"] {
            #expect(help.output.contains(setting), "\(setting)")
        }
    }

    @Test func badConfiguration_stopsStartUp_withClearError() throws {
        let missing = try Tool.run(["serve", "--port", "0", "--database", "/tmp/never.sqlite"])
        #expect(missing.status == 78)
        #expect(missing.errors.contains("MASTHEAD_API_TOKEN is not set"))
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = folder.appendingPathComponent("config.json")
        try Data(#"{"port": 0, "maxBodyBites": 10}"#.utf8).write(to: config)
        let outcome = try Tool.run(["serve", "--config", config.path], environment: ServerProcess.environment)
        #expect(outcome.status == 78)
        #expect(outcome.errors.contains(#"unknown setting "maxBodyBites""#))
    }

    /// Consumption information without the App Store Server API key to send it with stops the start, before serving.
    @Test func consumptionInformation_withoutAKey_stopsStartUp_namingWhatIsMissing() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let outcome = try Tool.run(
            ["serve", "--port", "0", "--database", folder.appendingPathComponent("db.sqlite").path, "--consumptionInformation"],
            environment: ServerProcess.environment)
        #expect(outcome.status == 78)
        #expect(outcome.errors.contains("consumptionInformation needs the App Store Server API key"))
        #expect(!outcome.output.contains("listening on"))
    }

    @Test func live_servesRefusesBadRequests_stopsGracefully_andRestartsWithData() throws {
        let database = Self.temporaryDatabase()
        defer { Self.remove(database) }
        let receipt = try Data(contentsOf: Tool.root.appendingPathComponent("Catalog/the-monthly/receipts/table-6-1.json"))
        do {
            let server = try ServerProcess(database: database)
            let client = try TestClient(port: server.port)
            #expect(client.request("GET", "/health")?.body == #"{"status":"ok"}"#)
            #expect(client.request("POST", "/v1/users/alice/receipts", headers: ["Authorization": "Bearer api-token"], body: [UInt8](receipt))?.status == 200)
            let big = try TestClient(port: server.port).request("POST", "/v1/users/alice/receipts", body: [UInt8](repeating: 0x20, count: 3 * 1024 * 1024))
            #expect(big?.status == 413)
            #expect(big?.body.contains("content_too_large") == true)
            let malformed = try TestClient(port: server.port)
            malformed.send("BROKEN\r\n\r\n")
            #expect(malformed.response()?.status == 400)
            let check = client.request("GET", "/v1/users/alice/issues/the-monthly/2020-06?at=2020-07-02T00:00:00Z", headers: ["Authorization": "Bearer api-token"])
            #expect(check?.body.contains(#""readable":true"#) == true)
            let stopped = server.stop(signal: SIGTERM)
            #expect(stopped.status == 0, "\(stopped.errors)")
            #expect(stopped.errors.contains("stopped; the database is closed"))
        }
        let restarted = try ServerProcess(database: database)
        let client = try TestClient(port: restarted.port)
        let check = client.request("GET", "/v1/users/alice/issues/the-monthly/2020-06?at=2020-07-02T00:00:00Z", headers: ["Authorization": "Bearer api-token"])
        #expect(check?.body.contains(#""readable":true"#) == true)
        let restartedStop = restarted.stop(signal: SIGINT)
        #expect(restartedStop.status == 0, "\(restartedStop.errors)")
    }

    @Test func refresh_runsOnce_andReportsWhatItDid() throws {
        let database = Self.temporaryDatabase()
        defer { Self.remove(database) }
        let outcome = try Tool.run(
            ["refresh", "--catalog", "Catalog/the-monthly", "--database", database, "--within", "3d"], environment: ServerProcess.environment)
        #expect(outcome.status == 0)
        #expect(
            outcome.output
                == "refresh: 0 due, 0 refreshed (0 by the App Store Server API, 0 by verifyReceipt), 0 without a stored receipt, 0 not polled: no App Store Server API key, 0 failed\n"
        )
    }

    /// `"polling": true`: the timer inside `serve` re-verifies a subscription about to expire
    /// with (a fake) Apple and applies the renewal it answers.
    @Test func pollingTimer_appliesRenewalFromApple() throws {
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let day = FakeApple.day
        let apple = try FakeApple.start(now: now)
        defer {
            apple.stop(gracePeriodMilliseconds: 100)
            apple.waitUntilStopped()
        }
        let database = Self.temporaryDatabase()
        defer { Self.remove(database) }
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = folder.appendingPathComponent("config.json")
        try Data(#"{"polling": true, "pollingIntervalSeconds": 1, "verifyReceiptProductionURL": "http://127.0.0.1:\#(apple.port)/verifyReceipt", "verifyReceiptAllowHTTP": true}"#.utf8).write(to: config)
        let server = try ServerProcess(database: database, extra: ["--config", config.path])
        let client = try TestClient(port: server.port)
        let receipt = #"{"status": 0, "latest_receipt": "OLD", "latest_receipt_info": [\#(FakeApple.firstMonth(now: now))]}"#
        #expect(client.request("POST", "/v1/users/pat/receipts", headers: ["Authorization": "Bearer api-token"], body: Array(receipt.utf8))?.status == 200)
        // As of two days ahead, when the renewal Apple reports has started.
        let later = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(now + 2 * day) / 1000))
        var transactions = 0
        for _ in 0..<50 where transactions < 2 {
            usleep(100_000)
            let body = client.request("GET", "/v1/users/pat/entitlements?at=\(later)", headers: ["Authorization": "Bearer api-token"])?.body ?? ""
            transactions = body.components(separatedBy: #""transactionId""#).count - 1
        }
        #expect(transactions == 2)
        let stopped = server.stop(signal: SIGTERM)
        #expect(stopped.errors.contains("polling: 1 due, 1 refreshed"))
    }

    /// Notifications posted by 8 concurrent clients; SIGKILL in the middle; every one answered 200
    /// must be in the database afterwards.
    @Test func sigkill_losesNoAcknowledgedNotification() throws {
        let database = Self.temporaryDatabase()
        defer { Self.remove(database) }
        let server = try ServerProcess(database: database)
        let port = server.port
        let acknowledged = Mutex<Set<Int>>([])
        let clients = 8
        let perClient = 400
        let group = DispatchGroup()
        for client in 0..<clients {
            DispatchQueue.global().async(group: group) {
                guard let connection = try? TestClient(port: port, timeoutMilliseconds: 3000) else { return }
                for round in 0..<perClient {
                    let index = client * perClient + round
                    guard let response = connection.request("POST", "/v1/notifications/app-store", body: Self.notification(index)) else { return }
                    if response.status == 200 { acknowledged.withLock { _ = $0.insert(index) } }
                }
            }
        }
        while acknowledged.withLock({ $0.count }) < 300 { usleep(2000) }
        _ = server.stop(signal: SIGKILL)
        group.wait()
        let answered = acknowledged.withLock { $0 }
        #expect(answered.count >= 300)
        #expect(answered.count < clients * perClient, "the kill came too late to test anything")
        let store = try SQLiteStore(path: database)
        let ids = try store.database.prepare("SELECT transaction_id FROM transactions").rows([]) { row throws(SQLiteError) in try row.text(0) }
        let stored = Set(ids.compactMap { Int($0.dropFirst()) })
        #expect(answered.isSubset(of: stored), "lost: \(answered.subtracting(stored).sorted().prefix(10))")
        #expect(try store.notificationCount() >= answered.count)
    }
}
