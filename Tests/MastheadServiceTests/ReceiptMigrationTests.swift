import Foundation
import Masthead
import MastheadAppStore
import MastheadService
import MastheadStorage
import MastheadTestSupport
import Synchronization
import Testing

/// Moving subscriptions known only from receipts to signed data through the App Store Server API
/// (the fake): a dry run, the migration, a second run, and polling afterwards.
struct ReceiptMigrationTests {
    /// Table 6-1 posted as a receipt; Apple's history has the same three transactions signed, and
    /// its statuses the renewal info.
    static func setUp() throws -> (FakeAppStoreServerAPI, ServiceHarness) {
        let fake = try RestoreTests.fake()
        let renewal = try SignedFixtures.renewal(original: "1000001", autoRenew: true, signed: "2020-07-01T00:00:00Z")
        let latest = try RestoreTests.table61()[2]
        fake.state.withLock { state in
            state.production.customers[0].statuses = [(originalTransactionId: "1000001", status: 1, signedTransaction: latest, signedRenewal: renewal)]
        }
        let harness = try RestoreTests.harness(fake)
        harness.setNow("2020-07-15T00:00:00Z")
        #expect(harness.call("POST", "/v1/users/ivy/receipts", body: try ServiceHarness.example("table-6-1")).status == 200)
        return (fake, harness)
    }

    static func migration(_ harness: ServiceHarness) throws -> ReceiptMigration {
        ReceiptMigration(service: harness.service, appStoreServerAPI: try #require(try harness.service.appStoreServerAPIClient(sleep: { _ in })))
    }

    /// Every download check's answer, for comparing before and after.
    static func checks(_ harness: ServiceHarness) -> [String: String] {
        SignedNotificationTests.checks("ivy") { harness.call("GET", $0).body }
    }

    @Test func dryRun_listsWhatWouldChange_andWritesNothing() throws {
        let (fake, harness) = try Self.setUp()
        defer { fake.stop() }
        defer { harness.close() }
        let before = Self.checks(harness)
        let report = try Self.migration(harness).run(dryRun: true)
        #expect(report.failures.isEmpty, "\(report.failures)")
        #expect(report.migrated.map(\.line) == ["production 1000001 (user ivy): 0 added, 0 changed, 3 confirmed, renewal info new"])
        #expect(report.summary == "1 receipt-only subscription, 1 would be migrated (0 transactions added, 0 changed, 3 confirmed, 1 renewal infos), 0 failed")
        #expect(try harness.service.receiptOnlySubscriptions().map(\.originalTransactionId) == ["1000001"])
        #expect(try harness.service.storedHistory(environment: .production, originalTransactionId: "1000001").transactions.allSatisfy { $0.signedDate == nil })
        SignedNotificationTests.expectSame(Self.checks(harness), before, "after the dry run")
    }

    /// Apple's history adds a renewal and refunds a transaction: the dry run names them.
    @Test func dryRun_namesAddedAndChangedTransactions() throws {
        let (fake, harness) = try Self.setUp()
        defer { fake.stop() }
        defer { harness.close() }
        let refunded = try SignedFixtures.transaction(
            "1000002", original: "1000001", from: "2020-03-20T11:58:00Z", to: "2020-04-20T12:00:00Z", signed: "2020-07-01T00:00:00Z", revoked: "2020-03-25T00:00:00Z")
        let renewal = try SignedFixtures.transaction("1000004", original: "1000001", from: "2020-07-17T11:58:00Z", to: "2020-08-17T12:00:00Z", signed: "2020-07-17T11:58:00Z")
        fake.state.withLock { state in
            state.production.customers[0].history[1] = refunded
            state.production.customers[0].history.append(renewal)
        }
        let report = try Self.migration(harness).run(dryRun: true)
        #expect(report.migrated.map(\.line) == ["production 1000001 (user ivy): 1 added (1000004), 1 changed (1000002), 2 confirmed, renewal info new"])
    }

    /// The migration signs the subscription, every check answers as before, polling then asks
    /// the App Store Server API, and a second run finds nothing to migrate.
    @Test func migration_signsTheSubscription_keepsTheHistory_andIsIdempotent() throws {
        let (fake, harness) = try Self.setUp()
        defer { fake.stop() }
        defer { harness.close() }
        RestoreTests.expectTable61("ivy") { harness.call("GET", $0).body }
        let before = Self.checks(harness)
        let migration = try Self.migration(harness)
        let report = try migration.run(dryRun: false)
        #expect(report.failures.isEmpty, "\(report.failures)")
        #expect(report.summary == "1 receipt-only subscription, 1 migrated (0 transactions added, 0 changed, 3 confirmed, 1 renewal infos), 0 failed")
        #expect(try harness.service.receiptOnlySubscriptions().isEmpty)
        #expect(try harness.service.storedHistory(environment: .production, originalTransactionId: "1000001").transactions.allSatisfy { $0.signedDate != nil })
        SignedNotificationTests.expectSame(Self.checks(harness), before, "after the migration")
        RestoreTests.expectTable61("ivy") { harness.call("GET", $0).body }
        #expect(fake.seen.map(\.target).filter { !$0.contains("revision") } == [
            "/production/inApps/v2/history/1000001?sort=ASCENDING", "/production/inApps/v1/subscriptions/1000001",
        ])
        // A second run asks Apple nothing and changes nothing.
        let asked = fake.seen.count
        let second = try migration.run(dryRun: false)
        #expect(second.summary == "0 receipt-only subscriptions, 0 migrated (0 transactions added, 0 changed, 0 confirmed, 0 renewal infos), 0 failed")
        #expect(fake.seen.count == asked)
        // Now signed, the subscription is polled through the App Store Server API.
        let client = try #require(try harness.service.appStoreServerAPIClient(sleep: { _ in }))
        let polled = try Refresher(service: harness.service, client: VerifyReceiptClient(configuration: harness.service.configuration), appStoreServerAPI: client)
            .run(within: 3 * 86_400_000)
        #expect(polled.refreshedByAPI == 1, "\(polled.summary)")
        #expect(polled.refreshedByReceipt == 0)
    }

    /// A subscription Apple's history does not have fails alone, is reported, and is written nowhere.
    @Test func migration_ofASubscriptionAppleDoesNotKnow_failsAndIsReported() throws {
        let (fake, harness) = try Self.setUp()
        defer { fake.stop() }
        defer { harness.close() }
        fake.state.withLock { $0.production.customers = [] }
        let report = try Self.migration(harness).run(dryRun: false)
        #expect(report.migrated.isEmpty)
        #expect(report.failures.count == 1)
        #expect(report.failures.first?.reason.contains("4040010") == true, "\(report.failures)")
        #expect(try harness.service.receiptOnlySubscriptions().map(\.originalTransactionId) == ["1000001"])
    }

    /// Migration asks the subscription's environment only: a sandbox history for a production
    /// subscription is someone else's.
    @Test func migration_asksTheSubscriptionsEnvironmentOnly() throws {
        let (fake, harness) = try Self.setUp()
        defer { fake.stop() }
        defer { harness.close() }
        fake.state.withLock { state in
            state.sandbox = state.production
            state.production = FakeAppStoreServerAPI.Store()
        }
        let report = try Self.migration(harness).run(dryRun: false)
        #expect(report.migrated.isEmpty)
        #expect(report.failures.count == 1)
        #expect(fake.seen.allSatisfy { $0.target.hasPrefix("/production/") }, "\(fake.seen.map(\.target))")
        #expect(try harness.service.receiptOnlySubscriptions().map(\.originalTransactionId) == ["1000001"])
    }

    /// A history holding none of the subscription's transactions is a failure naming it; nothing is written.
    @Test func migration_ofAHistoryWithoutTheSubscription_failsNamingIt() throws {
        let (fake, harness) = try Self.setUp()
        defer { fake.stop() }
        defer { harness.close() }
        let other = try SignedFixtures.transaction("2000001", original: "2000001", from: "2020-06-01T00:00:00Z", to: "2020-07-01T00:00:00Z", signed: "2020-07-01T00:00:00Z")
        fake.state.withLock { $0.production.customers[0].history = [other] }
        let report = try Self.migration(harness).run(dryRun: false)
        #expect(report.migrated.isEmpty)
        #expect(report.failures.map(\.reason) == ["Apple's transaction history has no transaction of subscription 1000001 (production)"])
        #expect(try harness.service.receiptOnlySubscriptions().map(\.originalTransactionId) == ["1000001"])
    }
}
