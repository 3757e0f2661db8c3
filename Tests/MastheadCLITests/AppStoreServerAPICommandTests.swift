import Foundation
import Glibc
import MastheadTestSupport
import Synchronization
import Testing

/// The App Store Server API's uses from the command line, against the fake: the service's polling
/// timer, filling a notification gap after an outage (`refresh --notifications-since`), and
/// `masthead migrate`.
struct AppStoreServerAPICommandTests {
    static let day: Int64 = 86_400_000
    static let api = ["Authorization": "Bearer api-token"]

    /// The key's variables, as an operator sets them.
    static var keyEnvironment: [String: String] {
        [
            "MASTHEAD_APP_STORE_KEY_ID": FakeAppStoreServerAPI.keyId, "MASTHEAD_APP_STORE_ISSUER_ID": FakeAppStoreServerAPI.issuerId,
            "MASTHEAD_APP_STORE_PRIVATE_KEY_FILE": FakeAppStoreServerAPI.privateKeyPath,
        ]
    }

    /// A configuration file pointing at `fake`, in `folder`; `extra` JSON members are added.
    static func config(_ fake: FakeAppStoreServerAPI, in folder: URL, extra: String = "") throws -> String {
        try SignedData.write(
            #"""
            {"appStoreBundleId": "com.example.magazine", "appStoreRootCertificates": ["\#(SignedData.root)"],
             "appStoreServerAPIProductionURL": "\#(fake.productionURL)", "appStoreServerAPISandboxURL": "\#(fake.sandboxURL)",
             "appStoreServerAPIAllowHTTP": true, "appStoreServerAPIBackoffMilliseconds": 10\#(extra)}
            """#, "config.json", in: folder)
    }

    static func instant(_ milliseconds: Int64) -> String {
        ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
    }

    /// `masthead serve` with the key in its environment and a one-second polling interval renews
    /// a lapsing signed reader through the fake, on its own.
    @Test func serve_pollingTimer_renewsALapsingSignedReader_throughTheAPI() throws {
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let history = [
            try SignedRefreshCommandTests.transaction("1000001", now - 59 * Self.day, now - 29 * Self.day),
            try SignedRefreshCommandTests.transaction("1000002", now - 29 * Self.day, now + Self.day),
        ]
        let renewal = try SignedRefreshCommandTests.transaction("1000003", now + Self.day - 60_000, now + 31 * Self.day)
        let fake = try SignedRefreshCommandTests.renewingFake(transactionIds: ["1000001", "1000002", "1000003"], renewal: renewal, now: now)
        defer { fake.stop() }
        let database = ServeCommandTests.temporaryDatabase()
        defer { ServeCommandTests.remove(database) }
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = try Self.config(fake, in: folder, extra: #", "polling": true, "pollingIntervalSeconds": 1"#)
        let server = try ServerProcess(database: database, extra: ["--config", config], environment: Self.keyEnvironment)
        let client = try TestClient(port: server.port)
        #expect(client.request("POST", "/v1/users/pat/transactions", headers: Self.api, body: Array(SignedData.document(transactions: history).utf8))?.status == 200)
        let later = Self.instant(now + 3 * Self.day)
        func entitled() -> Bool {
            client.request("GET", "/v1/users/pat/entitlements?at=\(later)", headers: Self.api)?.body.contains(#""state":"active""#) == true
        }
        // The timer fires every second; the fake is asked once the transactions are stored.
        var waited = 0
        while !entitled() && waited < 300 {
            usleep(100_000)
            waited += 1
        }
        #expect(entitled())
        #expect(fake.seen.first?.target == "/production/inApps/v1/subscriptions/1000001")
        #expect(fake.seen.allSatisfy { $0.refusal == nil }, "\(fake.seen.compactMap(\.refusal))")
        let stopped = server.stop(signal: SIGTERM)
        #expect(stopped.status == 0)
        #expect(stopped.errors.contains("polling: 1 due, 1 refreshed (1 by the App Store Server API, 0 by verifyReceipt)"), "\(stopped.errors)")
    }

    /// `serve` with the key: a subscription bought without an app account token, posted for a
    /// user who has one, is given the token at Apple by the timer after the answer, once; the log
    /// names the subscription, never the token.
    @Test func serve_tokenTimer_setsTheUsersTokenAtApple_once() throws {
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let history = [
            try SignedRefreshCommandTests.transaction("1000001", now - 59 * Self.day, now - 29 * Self.day),
            try SignedRefreshCommandTests.transaction("1000002", now - 29 * Self.day, now + Self.day),
        ]
        let fake = try SignedRefreshCommandTests.renewingFake(transactionIds: ["1000001", "1000002"], renewal: history[1], now: now)
        defer { fake.stop() }
        let database = ServeCommandTests.temporaryDatabase()
        defer { ServeCommandTests.remove(database) }
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = try Self.config(fake, in: folder, extra: #", "appAccountTokenUpdateIntervalSeconds": 1"#)
        let server = try ServerProcess(database: database, extra: ["--config", config], environment: Self.keyEnvironment)
        let client = try TestClient(port: server.port)
        let token = "3f2504e0-4f89-41d3-9a0c-0305e82c3301"
        #expect(client.request("PUT", "/v1/users/pat/app-account-tokens/\(token)", headers: Self.api)?.status == 200)
        #expect(client.request("POST", "/v1/users/pat/transactions", headers: Self.api, body: Array(SignedData.document(transactions: history).utf8))?.status == 200)
        // Counted once Apple's answer is recorded.
        func sent() -> Bool {
            client.request("GET", "/metrics", headers: Self.api)?.body.contains(#"masthead_app_account_token_updates_total{outcome="sent"} 1"#) == true
        }
        // The timer fires every second.
        var waited = 0
        while !sent() && waited < 300 {
            usleep(100_000)
            waited += 1
        }
        #expect(sent())
        #expect(fake.state.withLock { $0.production.appAccountTokens } == ["1000001": token])
        // A few more ticks send nothing more.
        usleep(2_500_000)
        let puts = fake.seen.filter { $0.method == "PUT" }
        #expect(puts.map(\.target) == ["/production/inApps/v1/transactions/1000001/appAccountToken"])
        #expect(puts.allSatisfy { $0.refusal == nil })
        let stopped = server.stop(signal: SIGTERM)
        #expect(stopped.status == 0)
        #expect(stopped.errors.contains("app account token: set at Apple for original transaction id 1000001 (Production), user pat"), "\(stopped.errors)")
        #expect(!stopped.errors.contains(token))
    }

    /// A version 2 notification's signed payload, with a fresh `notificationUUID`.
    static func payload(_ type: String, transaction: String, signed: Int64) throws -> String {
        try SignedData.sign([
            "notificationType": type, "notificationUUID": UUID().uuidString.lowercased(), "version": "2.0", "signedDate": signed,
            "data": [
                "bundleId": "com.example.magazine", "appAppleId": 1_234_567_890, "environment": "Production", "signedTransactionInfo": transaction,
            ] as [String: Any],
        ])
    }

    /// The user's entitlements at a few instants, as `server` answers them.
    static func answers(_ server: ServerProcess) throws -> [String] {
        let client = try TestClient(port: server.port)
        return ["2020-03-01T00:00:00Z", "2020-04-01T00:00:00Z", "2020-06-20T00:00:00Z", "2020-07-01T00:00:00Z"].map { at in
            client.request("GET", "/v1/users/pat/entitlements?at=\(at)", headers: Self.api)?.body ?? "no answer"
        }
    }

    /// An outage: the service received the first renewal's notification, not the next renewal's
    /// nor the refund's. `refresh --notifications-since` applies the two it missed and counts the
    /// one it had; the state is then that of a service that received all three, and a second run
    /// changes nothing.
    @Test func refresh_notificationsSince_fillsTheGap_andIsIdempotent() throws {
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let ms = { (text: String) in Int64(ISO8601DateFormatter().date(from: text)!.timeIntervalSince1970 * 1000) }
        let first = try SignedRefreshCommandTests.transaction("1000001", ms("2020-02-20T12:00:00Z"), ms("2020-03-20T12:00:00Z"))
        let second = try SignedRefreshCommandTests.transaction("1000002", ms("2020-03-20T11:58:00Z"), ms("2020-04-20T12:00:00Z"))
        let third = try SignedRefreshCommandTests.transaction("1000003", ms("2020-06-17T12:00:00Z"), ms("2020-07-17T12:00:00Z"))
        let refunded = try SignedData.transaction([
            "transactionId": "1000002", "purchaseDate": ms("2020-03-20T11:58:00Z"), "expiresDate": ms("2020-04-20T12:00:00Z"),
            "signedDate": ms("2020-03-25T00:00:00Z"), "revocationDate": ms("2020-03-25T00:00:00Z"), "revocationReason": 0,
        ])
        let notifications = [
            (try Self.payload("DID_RENEW", transaction: second, signed: ms("2020-03-20T11:58:00Z")), now - 600_000),
            (try Self.payload("SUBSCRIBED", transaction: third, signed: ms("2020-06-17T12:00:00Z")), now - 300_000),
            (try Self.payload("REFUND", transaction: refunded, signed: ms("2020-03-25T00:00:00Z")), now - 120_000),
        ]
        let fake = try FakeAppStoreServerAPI(bundleId: "com.example.magazine")
        defer { fake.stop() }
        fake.state.withLock { $0.production.notifications = notifications.map { (signedPayload: $0.0, sent: $0.1) } }
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = try Self.config(fake, in: folder)
        let body = { (payload: String) in Array(#"{"signedPayload":"\#(payload)"}"#.utf8) }
        // The service that lived through the outage, and one that received everything.
        let database = ServeCommandTests.temporaryDatabase()
        defer { ServeCommandTests.remove(database) }
        let reference = ServeCommandTests.temporaryDatabase()
        defer { ServeCommandTests.remove(reference) }
        let server = try ServerProcess(database: database, extra: ["--config", config])
        let complete = try ServerProcess(database: reference, extra: ["--config", config])
        for (target, delivered) in [(server, notifications.prefix(1)), (complete, notifications.prefix(3))] {
            let client = try TestClient(port: target.port)
            #expect(client.request("POST", "/v1/users/pat/transactions", headers: Self.api, body: Array(SignedData.document(transactions: [first]).utf8))?.status == 200)
            for notification in delivered {
                #expect(client.request("POST", "/v1/notifications/app-store", body: body(notification.0))?.status == 200)
            }
        }
        #expect(try Self.answers(server) != Self.answers(complete))
        let environment = ServerProcess.environment.merging(Self.keyEnvironment) { $1 }
        let since = Self.instant(now - 3_600_000)
        let arguments = ["refresh", "--catalog", "Catalog/the-monthly", "--database", database, "--config", config, "--notifications-since", since]
        let run = try Tool.run(arguments, environment: environment)
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.hasSuffix(": 3 notifications: 2 applied, 1 already received, 0 failed\n"), "\(run.output)")
        #expect(fake.seen.map(\.target) == ["/production/inApps/v1/notifications/history", "/production/inApps/v1/notifications/history?paginationToken=page-2"])
        let filled = try Self.answers(server)
        #expect(filled == (try Self.answers(complete)))
        let again = try Tool.run(arguments, environment: environment)
        #expect(again.status == 0, "\(again.errors)")
        #expect(again.output.hasSuffix(": 3 notifications: 0 applied, 3 already received, 0 failed\n"), "\(again.output)")
        #expect(try Self.answers(server) == filled)
        #expect(server.stop(signal: SIGTERM).status == 0)
        #expect(complete.stop(signal: SIGTERM).status == 0)
    }

    /// Apple's 180 days, and a range that ends before it starts, are refused before anything is asked.
    @Test(arguments: [
        (["--notifications-since", "2020-01-01T00:00:00Z"], "more than 180 days ago"),
        (["--notifications-since", "2100-01-02T00:00:00Z", "--notifications-until", "2100-01-01T00:00:00Z"], "must be before --notifications-until"),
        (["--notifications-since", "yesterday"], "--notifications-since must be an RFC 3339 instant"),
        (["--notifications-until", "2100-01-01T00:00:00Z"], "--notifications-until needs --notifications-since"),
    ])
    func refresh_notificationRange_outsideApplesLimits_isAUsageError(options: [String], message: String) throws {
        let run = try Tool.run(["refresh", "--catalog", "Catalog/the-monthly", "--database", "/nonexistent/masthead.sqlite"] + options, environment: ServerProcess.environment)
        #expect(run.status == 64)
        #expect(run.errors.contains(message), "\(run.errors)")
    }

    /// `masthead migrate` on a database holding Table 6-1 as a receipt: the dry run lists the
    /// subscription and writes nothing; the run signs it with every answer kept; a second run
    /// finds nothing; a subscription Apple does not know fails with exit status 1.
    @Test func migrate_dryRun_thenRun_thenNothingLeft() throws {
        let fake = try FakeAppStoreServerAPI(bundleId: "com.example.magazine")
        defer { fake.stop() }
        let ms = { (text: String) in Int64(ISO8601DateFormatter().date(from: text)!.timeIntervalSince1970 * 1000) }
        let history = [
            try SignedRefreshCommandTests.transaction("1000001", ms("2020-02-20T12:00:00Z"), ms("2020-03-20T12:00:00Z")),
            try SignedRefreshCommandTests.transaction("1000002", ms("2020-03-20T11:58:00Z"), ms("2020-04-20T12:00:00Z")),
            try SignedRefreshCommandTests.transaction("1000003", ms("2020-06-17T12:00:00Z"), ms("2020-07-17T12:00:00Z")),
        ]
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = try Self.config(fake, in: folder)
        let database = ServeCommandTests.temporaryDatabase()
        defer { ServeCommandTests.remove(database) }
        let server = try ServerProcess(database: database, extra: ["--config", config])
        let receipt = try Data(contentsOf: Tool.root.appendingPathComponent("Catalog/the-monthly/receipts/table-6-1.json"))
        #expect(try TestClient(port: server.port).request("POST", "/v1/users/pat/receipts", headers: Self.api, body: [UInt8](receipt))?.status == 200)
        let before = try Self.answers(server)
        let environment = ServerProcess.environment.merging(Self.keyEnvironment) { $1 }
        let migrate = ["migrate", "--catalog", "Catalog/the-monthly", "--database", database, "--config", config]
        // Apple does not know the customer: the subscription fails, nothing is written.
        let unknown = try Tool.run(migrate, environment: environment)
        #expect(unknown.status == 1)
        #expect(unknown.output.contains("production 1000001: failed: "), "\(unknown.output)")
        #expect(unknown.output.hasSuffix("migrate: 1 receipt-only subscription, 0 migrated (0 transactions added, 0 changed, 0 confirmed, 0 renewal infos), 1 failed\n"))
        fake.state.withLock { $0.production.customers = [FakeAppStoreServerAPI.Customer(transactionIds: ["1000001", "1000002", "1000003"], history: history)] }
        let dry = try Tool.run(migrate + ["--dry-run"], environment: environment)
        #expect(dry.status == 0, "\(dry.errors)")
        #expect(dry.output == """
              production 1000001 (user pat): 0 added, 0 changed, 3 confirmed, renewal info unchanged
            migrate (dry run, nothing written): 1 receipt-only subscription, 1 would be migrated (0 transactions added, 0 changed, 3 confirmed, 0 renewal infos), 0 failed

            """)
        #expect(try Tool.run(migrate + ["--dry-run"], environment: environment).output == dry.output)
        let run = try Tool.run(migrate, environment: environment)
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.hasSuffix("migrate: 1 receipt-only subscription, 1 migrated (0 transactions added, 0 changed, 3 confirmed, 0 renewal infos), 0 failed\n"))
        #expect(try Self.answers(server) == before)
        let second = try Tool.run(migrate, environment: environment)
        #expect(second.status == 0)
        #expect(second.output == "migrate: 0 receipt-only subscriptions, 0 migrated (0 transactions added, 0 changed, 0 confirmed, 0 renewal infos), 0 failed\n")
        // Without the key, migrate refuses to start.
        let keyless = try Tool.run(migrate, environment: ServerProcess.environment)
        #expect(keyless.status == 78)
        #expect(keyless.errors.contains("MASTHEAD_APP_STORE_KEY_ID"), "\(keyless.errors)")
        #expect(server.stop(signal: SIGTERM).status == 0)
    }
}
