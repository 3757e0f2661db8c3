import Foundation
import Masthead
import MastheadPostgreSQL
import MastheadSQLite
import MastheadStorage
import MastheadTestSupport
import Testing

/// The SQLite store, each test on a fresh temporary database.
struct StoreTests {
    static func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("masthead-store-\(UUID().uuidString).sqlite").path
    }

    static func remove(_ path: String) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    static func transaction(_ id: String, original: String? = nil, product: String = "monthly", from: Int64, to: Int64?, cancelled: Int64? = nil) -> Transaction {
        Transaction(
            transactionId: id, originalTransactionId: original, productId: product, purchase: Instant(milliseconds: from),
            expires: to.map(Instant.init(milliseconds:)), cancellation: cancelled.map(Instant.init(milliseconds:)))
    }

    @Test func database_usesWAL_andRecordsMigrations() throws {
        let path = Self.temporaryPath()
        defer { Self.remove(path) }
        let store = try SQLiteStore(path: path)
        #expect(try store.database.scalar("PRAGMA journal_mode") == .text("wal"))
        #expect(try store.database.scalar("PRAGMA synchronous") == .integer(2))
        #expect(try store.database.scalar("SELECT max(version) FROM migrations") == .integer(20))
        // Opening again applies nothing twice.
        let again = try SQLiteStore(path: path)
        #expect(try again.database.scalar("SELECT count(*) FROM migrations") == .integer(20))
    }

    @Test(arguments: StoreBackend.tested) func inTransaction_rollsBack_whenBodyThrows(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        #expect(throws: StorageError.closed) {
            try store.inTransaction { () throws(StorageError) in
                try store.save(transactions: [Self.transaction("a", from: 1, to: 2)], renewals: [])
                throw StorageError.closed
            }
        }
        #expect(try fixture.scalar("SELECT count(*) FROM transactions") == .integer(0))
    }

    @Test(arguments: StoreBackend.tested) func transactions_mergeCopies_R2_3_andHistoryFollowsLinks(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        try store.save(transactions: [Self.transaction("a", from: 10, to: 20), Self.transaction("b", original: "a", from: 20, to: 30)], renewals: [])
        // Unlinked so far: nobody's history.
        #expect(try store.history(forUser: "u1").transactions.isEmpty)
        _ = try store.link(userId: "u1", transactions: [Self.transaction("a", from: 10, to: 20)], latestReceipt: "R1", restore: .transfer, now: Instant(milliseconds: 5))
        #expect(try store.history(forUser: "u1").transactions.map(\.transactionId) == ["a", "b"])
        // A later copy adds a cancellation; another copy without it does not remove it.
        try store.save(transactions: [Self.transaction("b", original: "a", from: 20, to: 30, cancelled: 25)], renewals: [])
        try store.save(transactions: [Self.transaction("b", original: "a", from: 20, to: 30)], renewals: [])
        #expect(try store.history(forUser: "u1").transactions.last?.cancellation == Instant(milliseconds: 25))
    }

    @Test(arguments: StoreBackend.tested) func restoreBehaviours(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        let active = Self.transaction("a", from: 0, to: 1000)
        try store.save(transactions: [active], renewals: [])
        _ = try store.link(userId: "first", transactions: [active], latestReceipt: nil, restore: .transfer, now: Instant(milliseconds: 10))
        #expect(throws: StorageError.receiptAlreadyInUse(environment: "production", originalTransactionId: "a", userId: "first")) {
            try store.link(userId: "second", transactions: [active], latestReceipt: nil, restore: .keep, now: Instant(milliseconds: 10))
        }
        #expect(throws: StorageError.self) {
            try store.link(userId: "second", transactions: [active], latestReceipt: nil, restore: .transferIfInactive, now: Instant(milliseconds: 10))
        }
        #expect(try store.users(linkedTo: ["a"], environment: .production) == ["first"])
        // Once it has expired, transferIfInactive moves it.
        #expect(try store.link(userId: "second", transactions: [active], latestReceipt: nil, restore: .transferIfInactive, now: Instant(milliseconds: 2000)) == ["first"])
        #expect(try store.users(linkedTo: ["a"], environment: .production) == ["second"])
        #expect(try store.link(userId: "third", transactions: [active], latestReceipt: nil, restore: .transfer, now: Instant(milliseconds: 10)) == ["second"])
        #expect(try store.history(forUser: "second").transactions.isEmpty)
        #expect(try store.history(forUser: "third").transactions.count == 1)
    }

    @Test(arguments: StoreBackend.tested) func renewals_keptAsHistory_andUnnamedOnesResolveByProduct_R2_6(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        let transactions = [Self.transaction("a", from: 0, to: 10), Self.transaction("b", original: "a", product: "premium", from: 10, to: 20)]
        try store.save(transactions: transactions, renewals: [RenewalInfo(productId: "premium", autoRenewOn: true)])
        _ = try store.link(userId: "u", transactions: transactions, latestReceipt: nil, restore: .transfer, now: Instant(milliseconds: 0))
        #expect(try store.history(forUser: "u").renewals.map(\.originalTransactionId) == ["a"])
        let retry = RenewalInfo(originalTransactionId: "a", productId: "premium", autoRenewOn: false, isInBillingRetry: true)
        try store.save(transactions: [], renewals: [retry, retry])
        let history = try store.history(forUser: "u")
        #expect(history.renewals.count == 2)
        #expect(history.renewal(forOriginalTransaction: "a", environment: .production, latestProductId: "premium", asOf: Instant(milliseconds: 20)) == retry)
    }

    /// Apple retries and reorders notifications: renewal infos are ordered by their evidence, so
    /// a replayed older one does not undo a newer one (R2.7), and each distinct one is kept once.
    @Test(arguments: StoreBackend.tested) func renewals_onOffReplayedOn_staysOff_R2_7(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        let transactions = [Self.transaction("a", from: 0, to: 1000)]
        _ = try store.link(userId: "u", transactions: transactions, latestReceipt: nil, restore: .transfer, now: Instant(milliseconds: 0))
        try store.save(transactions: transactions, renewals: [])
        let on = RenewalInfo(originalTransactionId: "a", productId: "monthly", autoRenewOn: true, evidence: Instant(milliseconds: 100))
        let off = RenewalInfo(originalTransactionId: "a", productId: "monthly", autoRenewOn: false, evidence: Instant(milliseconds: 200))
        for info in [on, off, on] { try store.save(transactions: [], renewals: [info]) }
        let history = try store.history(forUser: "u")
        #expect(history.renewals == [on, off])
        func autoRenew(at milliseconds: Int64) -> Bool? {
            history.renewal(forOriginalTransaction: "a", environment: .production, latestProductId: "monthly", asOf: Instant(milliseconds: milliseconds))?.autoRenewOn
        }
        #expect(autoRenew(at: 500) == false)
        #expect(autoRenew(at: 150) == true)
        #expect(autoRenew(at: 50) == nil)
    }

    /// Renewal infos stored before they were kept as a history survive the migration, undated.
    @Test func migration_keepsEarlierRenewalInfos_withoutEvidence() throws {
        let path = Self.temporaryPath()
        defer { Self.remove(path) }
        do {
            let database = try Database(path: path)
            try database.execute("""
                CREATE TABLE migrations (version INTEGER PRIMARY KEY, applied_ms INTEGER NOT NULL);
                INSERT INTO migrations VALUES (1, 0);
                CREATE TABLE users (user_id TEXT PRIMARY KEY, created_ms INTEGER NOT NULL);
                CREATE TABLE subscriptions (
                    environment TEXT NOT NULL, original_transaction_id TEXT NOT NULL, user_id TEXT NOT NULL REFERENCES users (user_id),
                    latest_receipt TEXT, linked_ms INTEGER NOT NULL, PRIMARY KEY (environment, original_transaction_id));
                CREATE TABLE transactions (
                    environment TEXT NOT NULL, transaction_id TEXT NOT NULL, original_transaction_id TEXT NOT NULL, product_id TEXT NOT NULL,
                    purchase_ms INTEGER NOT NULL, expires_ms INTEGER, cancellation_ms INTEGER,
                    is_upgraded INTEGER NOT NULL, is_trial INTEGER NOT NULL, is_intro_offer INTEGER NOT NULL,
                    PRIMARY KEY (environment, transaction_id));
                CREATE TABLE renewals (
                    environment TEXT NOT NULL, original_transaction_id TEXT NOT NULL, product_id TEXT, auto_renew_product_id TEXT,
                    auto_renew_on INTEGER, billing_retry INTEGER NOT NULL, grace_expires_ms INTEGER, expiration_intent TEXT,
                    PRIMARY KEY (environment, original_transaction_id));
                CREATE TABLE notifications (
                    id INTEGER PRIMARY KEY, received_ms INTEGER NOT NULL, notification_type TEXT NOT NULL, environment TEXT,
                    original_transaction_ids TEXT NOT NULL, body TEXT NOT NULL);
                INSERT INTO users VALUES ('u', 0);
                INSERT INTO subscriptions VALUES ('production', 'a', 'u', NULL, 0);
                INSERT INTO renewals VALUES ('production', 'a', 'monthly', 'monthly', 0, 1, 500, '2');
                """)
        }
        let store = try SQLiteStore(path: path)
        #expect(try store.history(forUser: "u").renewals == [
            RenewalInfo(
                originalTransactionId: "a", productId: "monthly", autoRenewProductId: "monthly", autoRenewOn: false, isInBillingRetry: true,
                gracePeriodExpires: Instant(milliseconds: 500), expirationIntent: "2")
        ])
    }

    /// A value the schema does not allow is an error naming the column and the query, not a
    /// default: a transaction whose environment reads 'Sandbox' is not taken for production's.
    @Test(arguments: StoreBackend.tested) func history_throws_whenAnEnvironmentIsUnknown(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        let transactions = [Self.transaction("a", from: 0, to: 10)]
        try store.save(transactions: transactions, renewals: [])
        _ = try store.link(userId: "u", transactions: transactions, latestReceipt: nil, restore: .transfer, now: Instant(milliseconds: 0))
        try fixture.execute("UPDATE transactions SET environment = 'Sandbox'; UPDATE subscriptions SET environment = 'Sandbox'")
        #expect {
            try store.history(forUser: "u")
        } throws: { error in
            let parts: (column: String, value: String, expected: String, sql: String)
            switch error {
            case StorageError.sqlite(.columnValue(let column, let value, let expected, let sql)): parts = (column, value, expected, sql)
            case StorageError.postgreSQL(.columnValue(let column, let value, let expected, let sql)): parts = (column, value, expected, sql)
            default: return false
            }
            let (column, value, expected, sql) = parts
            return column == "environment" && value == "Sandbox" && expected == "an environment (production or sandbox)"
                && sql.contains("FROM subscriptions s JOIN transactions t")
        }
    }

    /// A receipt refused for one of its subscriptions links none of them, even when the caller
    /// opened no transaction: the user is not recorded and a free subscription it names stays free.
    @Test(arguments: StoreBackend.tested) func link_refused_linksNothing_withoutACallersTransaction(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        // Subscriptions are decided in id order: the free one first, then the refused one.
        let free = Self.transaction("a", from: 0, to: 1000)
        let taken = Self.transaction("b", from: 0, to: 1000)
        try store.save(transactions: [free, taken], renewals: [])
        _ = try store.link(userId: "first", transactions: [taken], latestReceipt: nil, restore: .transfer, now: Instant(milliseconds: 10))
        #expect(throws: StorageError.receiptAlreadyInUse(environment: "production", originalTransactionId: "b", userId: "first")) {
            try store.link(userId: "second", transactions: [free, taken], latestReceipt: nil, restore: .keep, now: Instant(milliseconds: 10))
        }
        #expect(try store.userExists("second") == false)
        #expect(try store.users(linkedTo: ["a"], environment: .production).isEmpty)
        #expect(try store.users(linkedTo: ["b"], environment: .production) == ["first"])
    }

    @Test(arguments: StoreBackend.tested) func refreshDue_listsSubscriptionsExpiringInWindow_withLatestReceipt(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        let soon = [Self.transaction("a", from: 0, to: 100), Self.transaction("a2", original: "a", from: 100, to: 500)]
        let later = [Self.transaction("b", from: 0, to: 5000)]
        try store.save(transactions: soon + later, renewals: [])
        _ = try store.link(userId: "u", transactions: soon, latestReceipt: "RECEIPT-A", restore: .transfer, now: Instant(milliseconds: 0))
        try store.recordLatestReceipt("RECEIPT-B", environment: .production, originalTransactionIds: ["b"])
        let due = try store.refreshDue(from: Instant(milliseconds: 400), to: Instant(milliseconds: 1000))
        #expect(due == [RefreshDue(environment: .production, originalTransactionId: "a", userId: "u", expires: Instant(milliseconds: 500), latestReceipt: "RECEIPT-A")])
        let unlinked = try store.refreshDue(from: Instant(milliseconds: 4000), to: Instant(milliseconds: 6000))
        #expect(unlinked.first?.latestReceipt == "RECEIPT-B")
        #expect(unlinked.first?.userId == nil)
        #expect(unlinked.first?.signed == false)
    }

    /// A subscription with a signed copy is polled through the App Store Server API, one known
    /// only from receipts through verifyReceipt: the store says which.
    @Test(arguments: StoreBackend.tested) func refreshDue_tellsSignedSubscriptions(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        var signed = Self.transaction("s2", original: "s", from: 100, to: 500)
        signed.signedDate = Instant(milliseconds: 120)
        try store.save(transactions: [Self.transaction("s", from: 0, to: 100), signed, Self.transaction("r", from: 0, to: 600)], renewals: [])
        let due = try store.refreshDue(from: Instant(milliseconds: 400), to: Instant(milliseconds: 1000))
        #expect(due.map(\.originalTransactionId) == ["s", "r"])
        #expect(due.map(\.signed) == [true, false])
    }

    @Test(arguments: StoreBackend.tested) func issuesAndNotifications_survive_reopening(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        do {
            let store = try fixture.open()
            try store.upsertIssue(publicationId: "p", issue: Issue(id: "x", title: "X", published: Instant(milliseconds: 5)))
            try store.upsertIssue(publicationId: "p", issue: Issue(id: "x", title: "X2", published: Instant(milliseconds: 6), isFree: true))
            _ = try store.recordNotification(type: "DID_RENEW", subtype: nil, uuid: nil, environment: .production, originalTransactionIds: ["a"], body: "{}", signed: false, received: Instant(milliseconds: 1))
        }
        let reopened = try fixture.open()
        #expect(try reopened.publishedIssues().map(\.issue) == [Issue(id: "x", title: "X2", published: Instant(milliseconds: 6), isFree: true)])
        #expect(try fixture.scalar("SELECT count(*) FROM notifications") == .integer(1))
        let reader = try fixture.openReadOnly()
        #expect(try reader.publishedIssues().count == 1)
        #expect(throws: (any Error).self) { try reader.upsertIssue(publicationId: "p", issue: Issue(id: "y", published: Instant(milliseconds: 7))) }
    }
}
