import Foundation
import Masthead
import MastheadAppStore
import MastheadJSON
@testable import MastheadService
import MastheadStorage
import MastheadTestSupport
import Synchronization
import Testing

/// A subscription bought without an app account token and linked to a user who has one is given
/// the user's token at Apple (Set App Account Token, against the fake): once, after the link is
/// acknowledged, retried on failure, never again after a restart; nothing without the App Store
/// Server API.
struct AppAccountTokenUpdateTests {
    static let token = "3f2504e0-4f89-41d3-9a0c-0305e82c3301"
    static let putBody = #"{"appAccountToken":"3f2504e0-4f89-41d3-9a0c-0305e82c3301"}"#
    static let putTarget = "/production/inApps/v1/transactions/2000001/appAccountToken"

    /// A fake knowing subscription 2000001 in production.
    static func fake() throws -> FakeAppStoreServerAPI {
        let fake = try FakeAppStoreServerAPI(bundleId: SignedFixtures.bundleId)
        fake.state.withLock { $0.production.customers = [FakeAppStoreServerAPI.Customer(transactionIds: ["2000001", "2000002"])] }
        return fake
    }

    /// A service taking in the test chain's signed data, with the fake's key when `fake` is given
    /// (one try per request, so that the updater's own retries show).
    static func harness(
        _ fake: FakeAppStoreServerAPI?, backend: StoreBackend = .sqlite, path: String? = nil, configure: (inout ServiceConfiguration) -> Void = { _ in }
    ) throws -> ServiceHarness {
        try ServiceHarness(backend: backend, path: path, now: "2020-07-15T00:00:00Z") { configuration in
            SignedFixtures.configure(&configuration)
            if let fake {
                fake.configure(&configuration)
                configuration.appStoreServerAPIAttempts = 1
            }
            configure(&configuration)
        }
    }

    /// The log lines an updater wrote.
    final class Lines: Sendable {
        let lines = Mutex<[String]>([])
        var all: [String] { lines.withLock { $0 } }
    }

    static func updater(_ harness: ServiceHarness, _ lines: Lines = Lines()) throws -> AppAccountTokenUpdater {
        let client = try #require(try harness.service.appStoreServerAPIClient(sleep: { _ in }))
        return AppAccountTokenUpdater(service: harness.service, client: client) { line in lines.lines.withLock { $0.append(line) } }
    }

    /// Subscription 2000001's two monthly transactions, signed without an app account token
    /// (or with `token`).
    static func transactions(token: String? = nil) throws -> String {
        SignedFixtures.transactions([
            try SignedFixtures.transaction("2000001", original: "2000001", from: "2020-06-01T00:00:00Z", to: "2020-07-01T00:00:00Z", signed: "2020-06-01T00:00:00Z", token: token),
            try SignedFixtures.transaction("2000002", original: "2000001", from: "2020-07-01T00:00:00Z", to: "2020-08-01T00:00:00Z", signed: "2020-07-01T00:00:00Z", token: token),
        ])
    }

    /// Every call queued in the harness's database.
    static func queued(_ harness: ServiceHarness) throws -> [(update: AppAccountTokenUpdate, state: AppAccountTokenUpdate.State, lastError: String?)] {
        try StoreLocation(harness.path).open(readOnly: true).appAccountTokenUpdates()
    }

    /// The value of `masthead_app_account_token_updates_total` for `outcome`.
    static func counted(_ harness: ServiceHarness, _ outcome: String) -> String? {
        let prefix = #"masthead_app_account_token_updates_total{outcome="\#(outcome)"} "#
        return harness.call("GET", "/metrics").body.split(separator: "\n").first { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
    }

    @Test(arguments: StoreBackend.tested) func linkedWithoutToken_toAUserWithOne_isSetAtAppleOnce_afterTheAnswer(backend: StoreBackend) throws {
        let fake = try Self.fake()
        defer { fake.stop() }
        let harness = try Self.harness(fake, backend: backend)
        defer { harness.close() }
        #expect(harness.call("PUT", "/v1/users/ana/app-account-tokens/\(Self.token)").status == 200)
        #expect(harness.call("POST", "/v1/users/ana/transactions", json: try Self.transactions()).status == 200)
        // Acknowledged without asking Apple; owed durably.
        #expect(fake.seen.isEmpty)
        let queued = try Self.queued(harness)
        #expect(queued.map(\.update) == [AppAccountTokenUpdate(environment: .production, originalTransactionId: "2000001", userId: "ana", appAccountToken: Self.token, attempts: 0)])
        #expect(queued.map(\.state) == [.pending])
        let lines = Lines()
        let report = try Self.updater(harness, lines).run()
        #expect(report == AppAccountTokenUpdater.Report(sent: 1, retried: 0, failed: 0))
        #expect(fake.seen.map(\.method) == ["PUT"])
        #expect(fake.seen.map(\.target) == [Self.putTarget])
        #expect(fake.seen.map(\.body) == [Self.putBody])
        #expect(fake.seen.allSatisfy { $0.refusal == nil })
        #expect(fake.state.withLock { $0.production.appAccountTokens } == ["2000001": Self.token])
        #expect(try Self.queued(harness).map(\.state) == [.sent])
        #expect(lines.all == ["app account token: set at Apple for original transaction id 2000001 (Production), user ana\n"])
        // Once: neither a second run nor the same purchases posted again send it again.
        #expect(try Self.updater(harness).run() == AppAccountTokenUpdater.Report())
        #expect(harness.call("POST", "/v1/users/ana/transactions", json: try Self.transactions()).status == 200)
        #expect(try Self.updater(harness).run() == AppAccountTokenUpdater.Report())
        #expect(fake.seen.count == 1)
        #expect(Self.counted(harness, "queued") == "1")
        #expect(Self.counted(harness, "sent") == "1")
    }

    @Test func serverError_isRetriedAfterTheBackoff_thenSentOnce() throws {
        let fake = try Self.fake()
        defer { fake.stop() }
        fake.state.withLock { $0.failures = [(500, nil)] }
        let harness = try Self.harness(fake)
        defer { harness.close() }
        #expect(harness.call("PUT", "/v1/users/ana/app-account-tokens/\(Self.token)").status == 200)
        #expect(harness.call("POST", "/v1/users/ana/transactions", json: try Self.transactions()).status == 200)
        let lines = Lines()
        #expect(try Self.updater(harness, lines).run() == AppAccountTokenUpdater.Report(sent: 0, retried: 1, failed: 0))
        #expect(try Self.queued(harness).map(\.lastError) == ["PUT /inApps/v1/transactions/2000001/appAccountToken (Production): unavailable after 1 attempt(s): HTTP 500, error 5000000"])
        #expect(lines.all.count == 1)
        #expect(lines.all.first?.hasPrefix("app account token: attempt 1 for original transaction id 2000001 (Production) failed, retried in 60 s") == true)
        #expect(lines.all.allSatisfy { !$0.contains(Self.token) })
        // Not due before its backoff.
        harness.setNow("2020-07-15T00:00:59Z")
        #expect(try Self.updater(harness).run() == AppAccountTokenUpdater.Report())
        #expect(fake.seen.count == 1)
        harness.setNow("2020-07-15T00:01:00Z")
        #expect(try Self.updater(harness).run() == AppAccountTokenUpdater.Report(sent: 1, retried: 0, failed: 0))
        #expect(fake.seen.map(\.body) == [Self.putBody, Self.putBody])
        #expect(try Self.queued(harness).map(\.state) == [.sent])
        #expect(try Self.queued(harness).map(\.update.attempts) == [2])
        harness.setNow("2020-07-16T00:00:00Z")
        #expect(try Self.updater(harness).run() == AppAccountTokenUpdater.Report())
        #expect(fake.seen.count == 2)
        #expect(Self.counted(harness, "retried") == "1")
        #expect(Self.counted(harness, "sent") == "1")
    }

    @Test func restart_sendsWhatWasOwed_andNeverResendsWhatWasSent() throws {
        let fake = try Self.fake()
        defer { fake.stop() }
        let first = try Self.harness(fake)
        #expect(first.call("PUT", "/v1/users/ana/app-account-tokens/\(Self.token)").status == 200)
        #expect(first.call("POST", "/v1/users/ana/transactions", json: try Self.transactions()).status == 200)
        first.close(remove: false)
        let second = try Self.harness(fake, path: first.path)
        #expect(try Self.updater(second).run() == AppAccountTokenUpdater.Report(sent: 1, retried: 0, failed: 0))
        second.close(remove: false)
        let third = try Self.harness(fake, path: first.path)
        defer { third.close() }
        #expect(try Self.updater(third).run() == AppAccountTokenUpdater.Report())
        #expect(fake.seen.map(\.target) == [Self.putTarget])
    }

    @Test func withoutTheAppStoreServerAPI_nothingIsQueued() throws {
        let harness = try Self.harness(nil)
        defer { harness.close() }
        #expect(harness.call("PUT", "/v1/users/ana/app-account-tokens/\(Self.token)").status == 200)
        #expect(harness.call("POST", "/v1/users/ana/transactions", json: try Self.transactions()).status == 200)
        #expect(try Self.queued(harness).isEmpty)
        #expect(try harness.service.appStoreServerAPIClient() == nil)
        #expect(Self.counted(harness, "queued") == "0")
    }

    @Test func subscriptionCarryingAToken_orUserWithoutOne_isNotQueued() throws {
        let fake = try Self.fake()
        defer { fake.stop() }
        let harness = try Self.harness(fake)
        defer { harness.close() }
        // The user has no token.
        #expect(harness.call("POST", "/v1/users/ben/transactions", json: try Self.transactions()).status == 200)
        #expect(try Self.queued(harness).isEmpty)
        // The purchase carries a token (another one): Apple has one already.
        #expect(harness.call("PUT", "/v1/users/ana/app-account-tokens/\(Self.token)").status == 200)
        let other = "9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d"
        #expect(harness.call("POST", "/v1/users/ana/transactions", json: try Self.transactions(token: other)).status == 200)
        #expect(try Self.queued(harness).isEmpty)
        #expect(try Self.updater(harness).run() == AppAccountTokenUpdater.Report())
        #expect(fake.seen.isEmpty)
    }

    @Test func postedReceipt_queuesTheUsersFirstLinkedToken() throws {
        let fake = try Self.fake()
        defer { fake.stop() }
        let harness = try Self.harness(fake)
        defer { harness.close() }
        #expect(harness.call("PUT", "/v1/users/ana/app-account-tokens/\(Self.token)").status == 200)
        harness.setNow("2020-07-15T00:00:01Z")
        #expect(harness.call("PUT", "/v1/users/ana/app-account-tokens/00000000-0000-4000-8000-000000000000").status == 200)
        #expect(harness.call("POST", "/v1/users/ana/receipts", body: try ServiceHarness.example("table-6-1")).status == 200)
        let queued = try Self.queued(harness)
        #expect(!queued.isEmpty)
        #expect(queued.allSatisfy { $0.update.appAccountToken == Self.token && $0.update.userId == "ana" && $0.state == .pending })
    }

    @Test func appleRefusal_isGivenUpAtOnce_withItsReason() throws {
        let fake = try Self.fake()
        defer { fake.stop() }
        fake.state.withLock { $0.appleErrors = [(400, 4_000_185)] }
        let harness = try Self.harness(fake)
        defer { harness.close() }
        #expect(harness.call("PUT", "/v1/users/ana/app-account-tokens/\(Self.token)").status == 200)
        #expect(harness.call("POST", "/v1/users/ana/transactions", json: try Self.transactions()).status == 200)
        let lines = Lines()
        #expect(try Self.updater(harness, lines).run() == AppAccountTokenUpdater.Report(sent: 0, retried: 0, failed: 1))
        let stored = try #require(try Self.queued(harness).first)
        #expect(stored.state == .failed)
        #expect(stored.lastError?.contains("error 4000185 (FamilyTransactionNotSupportedError)") == true)
        #expect(lines.all.first?.hasPrefix("app account token: given up for original transaction id 2000001 (Production): after 1 attempt(s): ") == true)
        harness.setNow("2020-07-20T00:00:00Z")
        #expect(try Self.updater(harness).run() == AppAccountTokenUpdater.Report())
        #expect(fake.seen.count == 1)
        #expect(Self.counted(harness, "failed") == "1")
    }

    @Test func refusedKey_isRetried_notGivenUp() throws {
        let fake = try Self.fake()
        defer { fake.stop() }
        let harness = try Self.harness(fake) { $0.appStoreIssuerId = "22222222-2222-3333-4444-555555555555" }
        defer { harness.close() }
        #expect(harness.call("PUT", "/v1/users/ana/app-account-tokens/\(Self.token)").status == 200)
        #expect(harness.call("POST", "/v1/users/ana/transactions", json: try Self.transactions()).status == 200)
        #expect(try Self.updater(harness).run() == AppAccountTokenUpdater.Report(sent: 0, retried: 1, failed: 0))
        #expect(fake.seen.first?.refusal == "iss is not \(FakeAppStoreServerAPI.issuerId)")
        #expect(try Self.queued(harness).map(\.state) == [.pending])
    }

    @Test func failures_pastTheAttempts_areGivenUp() throws {
        let fake = try Self.fake()
        defer { fake.stop() }
        fake.state.withLock { $0.failures = [(503, nil), (503, nil)] }
        let harness = try Self.harness(fake) { $0.appAccountTokenUpdateAttempts = 2 }
        defer { harness.close() }
        #expect(harness.call("PUT", "/v1/users/ana/app-account-tokens/\(Self.token)").status == 200)
        #expect(harness.call("POST", "/v1/users/ana/transactions", json: try Self.transactions()).status == 200)
        #expect(try Self.updater(harness).run() == AppAccountTokenUpdater.Report(sent: 0, retried: 1, failed: 0))
        harness.setNow("2020-07-15T00:01:00Z")
        #expect(try Self.updater(harness).run() == AppAccountTokenUpdater.Report(sent: 0, retried: 0, failed: 1))
        #expect(try Self.queued(harness).map(\.state) == [.failed])
        harness.setNow("2020-07-20T00:00:00Z")
        #expect(try Self.updater(harness).run() == AppAccountTokenUpdater.Report())
        #expect(fake.seen.count == 2)
    }

    @Test func stoppingRun_sendsNothing_andTheCallStaysOwed() throws {
        let fake = try Self.fake()
        defer { fake.stop() }
        let harness = try Self.harness(fake)
        defer { harness.close() }
        #expect(harness.call("PUT", "/v1/users/ana/app-account-tokens/\(Self.token)").status == 200)
        #expect(harness.call("POST", "/v1/users/ana/transactions", json: try Self.transactions()).status == 200)
        #expect(try Self.updater(harness).run(while: { false }) == AppAccountTokenUpdater.Report())
        #expect(fake.seen.isEmpty)
        #expect(try Self.queued(harness).map(\.state) == [.pending])
        #expect(try Self.queued(harness).map(\.update.attempts) == [0])
    }

    /// A call queued for ana is not sent once the subscription has moved to bob (a restore by
    /// another user) before it went out: Apple would otherwise give bob's subscription ana's token.
    @Test func subscriptionMovedToAnotherUser_beforeTheCall_isGivenUpUnsent() throws {
        let fake = try Self.fake()
        defer { fake.stop() }
        let harness = try Self.harness(fake)
        defer { harness.close() }
        #expect(harness.call("PUT", "/v1/users/ana/app-account-tokens/\(Self.token)").status == 200)
        #expect(harness.call("POST", "/v1/users/ana/transactions", json: try Self.transactions()).status == 200)
        #expect(harness.call("POST", "/v1/users/bob/transactions", json: try Self.transactions()).status == 200)
        let lines = Lines()
        #expect(try Self.updater(harness, lines).run() == AppAccountTokenUpdater.Report(sent: 0, retried: 0, failed: 1))
        #expect(fake.seen.isEmpty)
        let stored = try #require(try Self.queued(harness).first)
        #expect(stored.state == .failed)
        #expect(stored.lastError == "the subscription is no longer linked to user ana")
        #expect(lines.all == ["app account token: given up for original transaction id 2000001 (Production): the subscription is no longer linked to user ana\n"])
    }

    /// A call queued with a token its user has unlinked since is not sent.
    @Test func tokenUnlinkedByItsUser_beforeTheCall_isGivenUpUnsent() throws {
        let fake = try Self.fake()
        defer { fake.stop() }
        let harness = try Self.harness(fake)
        defer { harness.close() }
        #expect(harness.call("PUT", "/v1/users/ana/app-account-tokens/\(Self.token)").status == 200)
        #expect(harness.call("POST", "/v1/users/ana/transactions", json: try Self.transactions()).status == 200)
        #expect(harness.call("DELETE", "/v1/users/ana/app-account-tokens/\(Self.token)").status == 200)
        #expect(try Self.updater(harness).run() == AppAccountTokenUpdater.Report(sent: 0, retried: 0, failed: 1))
        #expect(fake.seen.isEmpty)
        #expect(try Self.queued(harness).first?.lastError == "user ana no longer has the app account token it was queued with")
    }

    @Test func retryWait_doublesFromAMinute_uptoSixHours() {
        #expect((1...11).map(AppAccountTokenUpdater.retryWait(afterAttempt:)) == [60_000, 120_000, 240_000, 480_000, 960_000, 1_920_000, 3_840_000, 7_680_000, 15_360_000, 21_600_000, 21_600_000])
    }
}
