import Foundation
import Glibc
import MastheadTestSupport
import Synchronization
import Testing

/// `masthead refresh` polling a signed subscription through the App Store Server API (the fake),
/// beside a running `masthead serve`, with the key given in the environment.
struct SignedRefreshCommandTests {
    static let day: Int64 = 86_400_000

    /// A transaction of subscription `1000001` from `from` to `to` (milliseconds).
    static func transaction(_ id: String, _ from: Int64, _ to: Int64) throws -> String {
        try SignedData.transaction([
            "transactionId": id, "purchaseDate": from, "originalPurchaseDate": from, "expiresDate": to, "signedDate": from,
        ])
    }

    /// A fake App Store Server API whose customer (subscription 1000001, `transactionIds`) Apple
    /// has renewed with `renewal`, auto-renew on, as of `now`.
    static func renewingFake(transactionIds: [String], renewal: String, now: Int64) throws -> FakeAppStoreServerAPI {
        let renewalInfo = try SignedData.sign([
            "originalTransactionId": "1000001", "productId": "com.example.monthly", "autoRenewProductId": "com.example.monthly", "autoRenewStatus": 1,
            "signedDate": now, "environment": "Production",
        ])
        let fake = try FakeAppStoreServerAPI(bundleId: "com.example.magazine")
        fake.state.withLock { state in
            state.production.customers = [
                FakeAppStoreServerAPI.Customer(
                    transactionIds: transactionIds,
                    statuses: [(originalTransactionId: "1000001", status: 1, signedTransaction: renewal, signedRenewal: renewalInfo)])
            ]
        }
        return fake
    }

    /// Table 6-1's reader moved to now: subscribe, renew, lapse two months, resubscribe; the last
    /// month ends a day from now, and Apple knows its renewal.
    @Test func refresh_renewsALapsingSignedReader_throughTheAPI() throws {
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let start = now - 119 * Self.day
        let history = [
            try Self.transaction("1000001", start, start + 30 * Self.day), try Self.transaction("1000002", start + 30 * Self.day - 120_000, start + 60 * Self.day),
            try Self.transaction("1000003", now - 29 * Self.day, now + Self.day),
        ]
        let renewal = try Self.transaction("1000004", now + Self.day - 60_000, now + 31 * Self.day)
        let fake = try Self.renewingFake(transactionIds: ["1000001", "1000002", "1000003", "1000004"], renewal: renewal, now: now)
        defer { fake.stop() }
        let database = ServeCommandTests.temporaryDatabase()
        defer { ServeCommandTests.remove(database) }
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = try SignedData.write(
            #"""
            {"appStoreBundleId": "com.example.magazine", "appStoreRootCertificates": ["\#(SignedData.root)"],
             "appStoreServerAPIProductionURL": "\#(fake.productionURL)", "appStoreServerAPISandboxURL": "\#(fake.sandboxURL)",
             "appStoreServerAPIAllowHTTP": true, "appStoreServerAPIBackoffMilliseconds": 10}
            """#, "config.json", in: folder)
        let server = try ServerProcess(database: database, extra: ["--config", config])
        let client = try TestClient(port: server.port)
        let api = ["Authorization": "Bearer api-token"]
        #expect(client.request("POST", "/v1/users/pat/transactions", headers: api, body: Array(SignedData.document(transactions: history).utf8))?.status == 200)
        // An issue published two days from now: readable only once the subscription renews.
        let published = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(now + 2 * Self.day) / 1000))
        let issue = #"{"title": "Next month", "published": "\#(published)"}"#
        #expect(client.request("PUT", "/v1/publications/the-monthly/issues/next", headers: ["Authorization": "Bearer admin-token"], body: Array(issue.utf8))?.status == 200)
        let later = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(now + 3 * Self.day) / 1000))
        func readable() -> String? { client.request("GET", "/v1/users/pat/issues/the-monthly/next?at=\(later)", headers: api)?.body }
        #expect(readable()?.contains(#""readable":false"#) == true, "\(readable() ?? "no answer")")
        var environment = ServerProcess.environment
        environment["MASTHEAD_APP_STORE_KEY_ID"] = FakeAppStoreServerAPI.keyId
        environment["MASTHEAD_APP_STORE_ISSUER_ID"] = FakeAppStoreServerAPI.issuerId
        environment["MASTHEAD_APP_STORE_PRIVATE_KEY_FILE"] = FakeAppStoreServerAPI.privateKeyPath
        let refresh = try Tool.run(
            ["refresh", "--catalog", "Catalog/the-monthly", "--database", database, "--config", config, "--within", "3d"], environment: environment)
        #expect(refresh.status == 0, "\(refresh.errors)")
        #expect(
            refresh.output
                == "refresh: 1 due, 1 refreshed (1 by the App Store Server API, 0 by verifyReceipt), 0 without a stored receipt, 0 not polled: no App Store Server API key, 0 failed\n"
        )
        #expect(fake.seen.map(\.target) == ["/production/inApps/v1/subscriptions/1000001"])
        #expect(fake.seen.allSatisfy { $0.refusal == nil }, "\(fake.seen.compactMap(\.refusal))")
        #expect(readable()?.contains(#""readable":true"#) == true, "\(readable() ?? "no answer")")
        // Without the key, the same subscription is reported, not failed.
        let keyless = try Tool.run(
            ["refresh", "--catalog", "Catalog/the-monthly", "--database", database, "--config", config, "--within", "40d"], environment: ServerProcess.environment)
        #expect(keyless.status == 0, "\(keyless.errors)")
        #expect(keyless.output.contains("1 not polled: no App Store Server API key, 0 failed"))
        // The key's bytes appear nowhere in what refresh printed.
        let key = try FakeAppStoreServerAPI.privateKeyPEM().split(separator: "\n")[1]
        #expect(!(refresh.output + refresh.errors + keyless.output + keyless.errors).contains(key))
        #expect(server.stop(signal: SIGTERM).status == 0)
    }

    /// A partial key configuration is refused before anything is asked, naming what is missing.
    @Test func refresh_withAKeyIdButNoKey_isAConfigurationError() throws {
        let database = ServeCommandTests.temporaryDatabase()
        defer { ServeCommandTests.remove(database) }
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = try SignedData.write(#"{"appStoreBundleId": "com.example.magazine"}"#, "config.json", in: folder)
        var environment = ServerProcess.environment
        environment["MASTHEAD_APP_STORE_KEY_ID"] = "KEY"
        environment["MASTHEAD_APP_STORE_ISSUER_ID"] = "ISSUER"
        let run = try Tool.run(["refresh", "--catalog", "Catalog/the-monthly", "--database", database, "--config", config], environment: environment)
        #expect(run.status == 78)
        #expect(run.errors.contains("MASTHEAD_APP_STORE_PRIVATE_KEY_FILE (or MASTHEAD_APP_STORE_PRIVATE_KEY) is not set"), "\(run.errors)")
    }
}
