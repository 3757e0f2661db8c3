import Foundation
import Masthead
import MastheadAppStore
import MastheadFormats
import MastheadHTTP
import MastheadJSON
import MastheadService
@testable import MastheadStorage
import MastheadTestSupport
import Synchronization
import Testing

/// The polling job against a fake Apple verifyReceipt server started by the test.
struct PollingTests {
    @Test func refresh_followsEnvironmentSwitch_retries_andAppliesTheAnswer() throws {
        let renewal = ServiceRouterTests.transaction("1000004", original: "1000001", from: "2020-07-17T11:58:00Z", to: "2020-08-17T12:00:00Z")
        let fresh = #"{"status": 0, "environment": "Production", "latest_receipt": "NEWER", "latest_receipt_info": [\#(renewal)]}"#
        let apple = try FakeApple(receipt: fresh)
        defer { apple.stop() }
        let harness = try ServiceHarness(now: "2020-07-15T00:00:00Z") { configuration in
            configuration.verifyReceiptProductionURL = "http://127.0.0.1:\(apple.server.port)/production/verifyReceipt"
            configuration.verifyReceiptSandboxURL = "http://127.0.0.1:\(apple.server.port)/sandbox/verifyReceipt"
            configuration.verifyReceiptAllowHTTP = true
            configuration.verifyReceiptBackoffMilliseconds = 10
        }
        defer { harness.close() }
        let receipt = String(decoding: try ServiceHarness.example("table-6-1"), as: UTF8.self).replacingOccurrences(of: "(base64 receipt)", with: "OLDER")
        #expect(harness.call("POST", "/v1/users/ivy/receipts", json: receipt).status == 200)
        #expect(ServiceRouterTests.readable(harness, "ivy", "2020-08", at: "2020-08-02T00:00:00Z") == false)
        let report = try Refresher(service: harness.service, client: VerifyReceiptClient(configuration: harness.service.configuration)).run(within: 3 * 86_400_000)
        #expect(report.due == 1)
        #expect(report.refreshed == 1)
        #expect(report.failures.isEmpty)
        let calls = apple.log.calls.withLock { $0 }
        #expect(calls.map { String($0.split(separator: " ")[0]) } == ["production/verifyReceipt", "sandbox/verifyReceipt", "sandbox/verifyReceipt"])
        #expect(calls[0].contains(#""receipt-data":"OLDER""#))
        #expect(calls[0].contains(#""password":"shared-secret""#))
        #expect(ServiceRouterTests.readable(harness, "ivy", "2020-08", at: "2020-08-02T00:00:00Z") == true)
        // The newer receipt is what the next poll will send.
        harness.setNow("2020-08-15T00:00:00Z")
        #expect(harness.call("GET", "/v1/refresh-due?within=3d").json?["subscriptions"]?.elements.first(where: { _ in true })?["latestReceipt"]?.string == "NEWER")
    }

    @Test func refresh_reportsFailures_whenAppleKeepsFailing() throws {
        var configuration = HTTPServerConfiguration()
        configuration.port = 0
        configuration.threads = 1
        let failing = try HTTPServer(configuration: configuration) { _, responder in responder.send(.json(200, Array(#"{"status": 21199}"#.utf8))) }
        try failing.start()
        defer {
            failing.stop(gracePeriodMilliseconds: 100)
            failing.waitUntilStopped()
        }
        let harness = try ServiceHarness(now: "2020-07-15T00:00:00Z") { configuration in
            configuration.verifyReceiptProductionURL = "http://127.0.0.1:\(failing.port)/verifyReceipt"
            configuration.verifyReceiptAllowHTTP = true
            configuration.verifyReceiptAttempts = 3
            configuration.verifyReceiptBackoffMilliseconds = 5
        }
        defer { harness.close() }
        #expect(harness.call("POST", "/v1/users/jo/receipts", body: try ServiceHarness.example("table-6-1")).status == 200)
        let report = try Refresher(service: harness.service, client: VerifyReceiptClient(configuration: harness.service.configuration)).run(within: 3 * 86_400_000)
        #expect(report.refreshed == 0)
        #expect(report.failures.count == 1)
        #expect(report.failures.first?.reason.contains("21199") == true)
    }
}

/// A fake verifyReceipt: production answers 21007 (a sandbox receipt), the sandbox answers
/// 21005 once (retryable), then the receipt with a new renewal.
final class FakeApple: Sendable {
    let log = CallLog()
    let server: HTTPServer

    init(receipt: String) throws {
        var configuration = HTTPServerConfiguration()
        configuration.port = 0
        configuration.threads = 1
        let log = self.log
        server = try HTTPServer(configuration: configuration) { request, responder in
            let path = request.pathSegments.joined(separator: "/")
            let count = log.calls.withLock { list -> Int in
                list.append(path + " " + String(decoding: request.body, as: UTF8.self))
                return list.filter { $0.hasPrefix(path) }.count
            }
            switch (path, count) {
            case ("production/verifyReceipt", _): responder.send(.json(200, Array(#"{"status": 21007}"#.utf8)))
            case ("sandbox/verifyReceipt", 1): responder.send(.json(200, Array(#"{"status": 21005}"#.utf8)))
            default: responder.send(.json(200, Array(receipt.utf8)))
            }
        }
        try server.start()
    }

    func stop() {
        server.stop(gracePeriodMilliseconds: 100)
        server.waitUntilStopped()
    }
}


/// The requests a fake server received.
final class CallLog: Sendable {
    let calls = Mutex<[String]>([])
}

/// Polling subscriptions with signed data through the App Store Server API (the fake).
struct SignedPollingTests {
    /// A service taking in the test chain's signed data, asking `fake` with the fake's key.
    static func harness(_ fake: FakeAppStoreServerAPI?) throws -> ServiceHarness {
        try ServiceHarness(now: "2020-07-15T00:00:00Z") { configuration in
            SignedFixtures.configure(&configuration)
            guard let fake else { return }
            fake.configure(&configuration)
        }
    }

    /// Table 6-1's reader, posted as signed transactions, lapses on 2020-07-17; Apple knows the renewal.
    static func renewingFake() throws -> FakeAppStoreServerAPI {
        let fake = try FakeAppStoreServerAPI(bundleId: SignedFixtures.bundleId)
        let renewal = try SignedFixtures.transaction(
            "1000004", original: "1000001", from: "2020-07-17T11:58:00Z", to: "2020-08-17T12:00:00Z", signed: "2020-07-17T11:58:00Z")
        let renewalInfo = try SignedFixtures.renewal(original: "1000001", autoRenew: true, signed: "2020-07-17T11:58:00Z")
        fake.state.withLock { state in
            state.production.customers = [
                FakeAppStoreServerAPI.Customer(
                    transactionIds: ["1000001", "1000002", "1000003", "1000004"],
                    statuses: [(originalTransactionId: "1000001", status: 1, signedTransaction: renewal, signedRenewal: renewalInfo)])
            ]
        }
        return fake
    }

    /// One polling run over the next three days with the harness's App Store Server API key.
    static func pollThroughTheAPI(_ harness: ServiceHarness) throws -> Refresher.Report {
        let client = try #require(try harness.service.appStoreServerAPIClient(sleep: { _ in }))
        return try Refresher(service: harness.service, client: VerifyReceiptClient(configuration: harness.service.configuration), appStoreServerAPI: client)
            .run(within: 3 * 86_400_000)
    }

    @Test func signedSubscription_isRenewedThroughTheAPI_andTheCheckAnswersTheNewIssue() throws {
        let fake = try Self.renewingFake()
        defer { fake.stop() }
        let harness = try Self.harness(fake)
        defer { harness.close() }
        #expect(harness.call("POST", "/v1/users/ivy/transactions", body: try ServiceHarness.example("table-6-1-signed")).status == 200)
        #expect(ServiceRouterTests.readable(harness, "ivy", "2020-08", at: "2020-08-02T00:00:00Z") == false)
        let report = try Self.pollThroughTheAPI(harness)
        #expect(report.due == 1)
        #expect(report.refreshedByAPI == 1)
        #expect(report.refreshedByReceipt == 0)
        #expect(report.failures.isEmpty, "\(report.failures)")
        #expect(fake.seen.map(\.target) == ["/production/inApps/v1/subscriptions/1000001"])
        #expect(fake.seen.allSatisfy { $0.refusal == nil })
        #expect(ServiceRouterTests.readable(harness, "ivy", "2020-08", at: "2020-08-02T00:00:00Z") == true)
        #expect(report.summary == "1 due, 1 refreshed (1 by the App Store Server API, 0 by verifyReceipt), 0 without a stored receipt, 0 not polled: no App Store Server API key, 0 failed")
    }

    /// A status carrying a renewal info and no transaction, beside the polled subscription's,
    /// changes the history of that subscription's reader: their stored history is written again,
    /// as the tables now give it.
    @Test func renewalInfoWithoutATransaction_storesItsReadersHistoryAgain() throws {
        let fake = try Self.renewingFake()
        defer { fake.stop() }
        let renewalInfo = try SignedFixtures.renewal(original: "1000009", autoRenew: false, signed: "2020-07-14T00:00:00Z", expirationIntent: 1)
        fake.state.withLock { state in
            state.production.customers[0].statuses.append((originalTransactionId: "1000009", status: 2, signedTransaction: "", signedRenewal: renewalInfo))
        }
        let harness = try Self.harness(fake)
        defer { harness.close() }
        #expect(harness.call("POST", "/v1/users/ivy/transactions", body: try ServiceHarness.example("table-6-1-signed")).status == 200)
        let kits = try SignedFixtures.transaction("1000009", original: "1000009", from: "2020-07-01T00:00:00Z", to: "2020-08-01T00:00:00Z", signed: "2020-07-01T00:00:00Z")
        #expect(harness.call("POST", "/v1/users/kit/transactions", body: Array(SignedFixtures.transactions([kits]).utf8)).status == 200)
        let store = try SQLiteStore(path: harness.path, readOnly: true)
        let before = try #require(try store.storedHistoryBytes(forUser: "kit"))
        let report = try Self.pollThroughTheAPI(harness)
        #expect(report.failures.isEmpty, "\(report.failures)")
        let fromTables = try store.historyFromTables(forUser: "kit")
        #expect(fromTables.renewals.map(\.autoRenewOn) == [false])
        let stored = try #require(try store.storedHistoryBytes(forUser: "kit"))
        #expect(stored != before)
        #expect(stored == StoredHistory.bytes(fromTables))
    }

    @Test func signedSubscription_withoutAKey_isReportedNotPolled() throws {
        let harness = try Self.harness(nil)
        defer { harness.close() }
        #expect(harness.call("POST", "/v1/users/ivy/transactions", body: try ServiceHarness.example("table-6-1-signed")).status == 200)
        #expect(try harness.service.appStoreServerAPIClient() == nil)
        let report = try Refresher(service: harness.service, client: VerifyReceiptClient(configuration: harness.service.configuration)).run(within: 3 * 86_400_000)
        #expect(report.due == 1)
        #expect(report.notPolled == 1)
        #expect(report.refreshed == 0)
        #expect(report.failures.isEmpty)
    }

    /// Polling asks the subscription's stored environment only: the sandbox's answer for a
    /// production subscription is not taken.
    @Test func signedSubscription_isPolledInItsEnvironmentOnly() throws {
        let fake = try Self.renewingFake()
        defer { fake.stop() }
        fake.state.withLock { state in
            state.sandbox = state.production
            state.production = FakeAppStoreServerAPI.Store()
        }
        let harness = try Self.harness(fake)
        defer { harness.close() }
        #expect(harness.call("POST", "/v1/users/ivy/transactions", body: try ServiceHarness.example("table-6-1-signed")).status == 200)
        let report = try Self.pollThroughTheAPI(harness)
        #expect(report.refreshed == 0)
        #expect(report.failures.count == 1)
        #expect(fake.seen.map(\.target) == ["/production/inApps/v1/subscriptions/1000001"])
        #expect(ServiceRouterTests.readable(harness, "ivy", "2020-08", at: "2020-08-02T00:00:00Z") == false)
    }

    /// An answer without the polled subscription is a failure, not a refresh, and is not applied.
    @Test func answerWithoutThePolledSubscription_isAFailure() throws {
        let fake = try FakeAppStoreServerAPI(bundleId: SignedFixtures.bundleId)
        defer { fake.stop() }
        let other = try SignedFixtures.transaction(
            "2000002", original: "2000001", from: "2020-07-17T11:58:00Z", to: "2020-08-17T12:00:00Z", signed: "2020-07-17T11:58:00Z")
        let otherRenewal = try SignedFixtures.renewal(original: "2000001", autoRenew: true, signed: "2020-07-17T11:58:00Z")
        fake.state.withLock { state in
            state.production.customers = [
                FakeAppStoreServerAPI.Customer(
                    transactionIds: ["1000001"], statuses: [(originalTransactionId: "2000001", status: 1, signedTransaction: other, signedRenewal: otherRenewal)])
            ]
        }
        let harness = try Self.harness(fake)
        defer { harness.close() }
        #expect(harness.call("POST", "/v1/users/ivy/transactions", body: try ServiceHarness.example("table-6-1-signed")).status == 200)
        let report = try Self.pollThroughTheAPI(harness)
        #expect(report.refreshed == 0)
        #expect(report.failures.map(\.originalTransactionId) == ["1000001"])
        #expect(report.failures.first?.reason == "Apple's answer does not hold this subscription")
    }

    /// Apple refusing the key fails the subscription with the key id, and the next ones without asking again.
    @Test func refusedKey_failsWithTheKeyId() throws {
        let fake = try Self.renewingFake()
        defer { fake.stop() }
        fake.state.withLock { $0.failures = [(401, nil)] }
        let harness = try Self.harness(fake)
        defer { harness.close() }
        #expect(harness.call("POST", "/v1/users/ivy/transactions", body: try ServiceHarness.example("table-6-1-signed")).status == 200)
        let report = try Self.pollThroughTheAPI(harness)
        #expect(report.failures.count == 1)
        #expect(report.failures.first?.reason.contains("key id \(FakeAppStoreServerAPI.keyId)") == true)
        #expect(ServiceRouterTests.readable(harness, "ivy", "2020-08", at: "2020-08-02T00:00:00Z") == false)
    }
}
