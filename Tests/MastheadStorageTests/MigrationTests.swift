import Foundation
import Masthead
import MastheadPostgreSQL
import MastheadSQLite
@testable import MastheadStorage
import MastheadTestSupport
import Testing

/// Migrations applied to a database written by an earlier version keep what it holds.
struct MigrationTests {
    /// A database at the schema of the first `count` migrations.
    static func database(at path: String, migrations count: Int) throws -> Database {
        let database = try Database(path: path)
        try Migrator(migrations: Array(SQLiteSchema.migrator.migrations.prefix(count))).migrate(database)
        return database
    }

    /// Migration 4 (signed data): stored notifications and transactions stay, with no uuid,
    /// subtype or signed date; users and their links stay.
    @Test func migration4_keepsNotificationsAndTransactions_withoutTheNewFields() throws {
        let path = StoreTests.temporaryPath()
        defer { StoreTests.remove(path) }
        do {
            let database = try Self.database(at: path, migrations: 3)
            try database.execute("""
                INSERT INTO users VALUES ('u', 0);
                INSERT INTO subscriptions VALUES ('production', 'a', 'u', NULL, 0);
                INSERT INTO transactions VALUES ('production', 'a', 'a', 'monthly', 0, 1000, NULL, 0, 0, 0);
                INSERT INTO notifications (received_ms, notification_type, environment, original_transaction_ids, body)
                    VALUES (5, 'DID_RENEW', 'production', 'a', '{}');
                """)
        }
        let store = try SQLiteStore(path: path)
        #expect(try store.database.scalar("SELECT max(version) FROM migrations") == .integer(Int64(SQLiteSchema.migrator.migrations.count)))
        #expect(try store.history(forUser: "u").transactions.map(\.transactionId) == ["a"])
        #expect(try store.database.scalar("SELECT signed_date_ms FROM transactions") == .null)
        #expect(try store.notificationCount() == 1)
        #expect(try store.database.scalar("SELECT count(*) FROM notifications WHERE notification_uuid IS NULL AND subtype IS NULL") == .integer(1))
        // The new tables are there and empty.
        #expect(try store.appAccountTokens(forUser: "u").isEmpty)
        #expect(try store.rejectedNotifications(limit: 10, withBodies: false).isEmpty)
    }

    /// Migration 5 (R2.8 persisted): transactions stored before read back as unsigned copies (no
    /// signed date, unsigned cancellation or offer), and merge with a signed copy by the rule.
    @Test func migration5_keepsTransactions_asUnsignedCopies() throws {
        let path = StoreTests.temporaryPath()
        defer { StoreTests.remove(path) }
        do {
            let database = try Self.database(at: path, migrations: 4)
            try database.execute("""
                INSERT INTO users VALUES ('u', 0);
                INSERT INTO subscriptions VALUES ('production', 'a', 'u', NULL, 0);
                INSERT INTO transactions (environment, transaction_id, original_transaction_id, product_id, purchase_ms, expires_ms,
                    cancellation_ms, is_upgraded, is_trial, is_intro_offer)
                VALUES ('production', 'a', 'a', 'monthly', 0, 1000, 500, 0, 0, 0);
                """)
        }
        let store = try SQLiteStore(path: path)
        let unsigned = Transaction(transactionId: "a", productId: "monthly", purchase: Instant(milliseconds: 0), expires: Instant(milliseconds: 1000), cancellation: Instant(milliseconds: 500))
        #expect(try store.history(forUser: "u").transactions == [unsigned])
        // A signed copy without the refund, signed after it: the unsigned refund came first, so it does not count (R2.8).
        var signed = unsigned
        signed.cancellation = nil
        signed.signedDate = Instant(milliseconds: 600)
        try store.save(transactions: [signed], renewals: [])
        let merged = try store.history(forUser: "u").transactions
        #expect(merged == [unsigned.merged(with: signed)])
        #expect(merged.first?.countedCancellation == nil)
    }

    /// Migration 6 (rejected notifications by kind): the rows kept before count as signed data,
    /// numbered in their order, and a new one of that kind follows them.
    @Test func migration6_keepsRejectedNotifications_asSignedData() throws {
        let path = StoreTests.temporaryPath()
        defer { StoreTests.remove(path) }
        do {
            let database = try Self.database(at: path, migrations: 5)
            try database.execute("""
                INSERT INTO rejected_notifications (received_ms, reason, bytes_before, body) VALUES (1, 'old', 0, x'0102');
                INSERT INTO rejected_notifications (received_ms, reason, bytes_before, body) VALUES (2, 'older', 2, x'03');
                """)
        }
        let store = try SQLiteStore(path: path)
        #expect(try store.rejectedNotifications(limit: 10, withBodies: false).map(\.kind) == [.signed, .signed])
        let next = try store.recordRejectedNotification(kind: .signed, reason: "new", body: [4], now: Instant(milliseconds: 3))
        #expect(try store.database.scalar("SELECT kind_seq FROM rejected_notifications WHERE id = \(next)") == .integer(3))
        #expect(try store.database.scalar("SELECT bytes_before FROM rejected_notifications WHERE id = \(next)") == .integer(2 + 1 + 5))
    }

    /// The revocation migration (SQLite's 7th, PostgreSQL's 3rd, R5.3): a transaction stored at the
    /// schema before reads back without a revocation type or share, and a revocation signed
    /// later replaces its state, type and share included.
    @Test(arguments: StoreBackend.tested) func revocationMigration_keepsTransactions_withoutARevocationType(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let latest = try fixture.migrate(sqlite: 6, postgreSQL: 2)
        try fixture.execute("""
            INSERT INTO users VALUES ('u', 0);
            INSERT INTO subscriptions VALUES ('production', 'a', 'u', NULL, 0);
            INSERT INTO transactions (environment, transaction_id, original_transaction_id, product_id, purchase_ms, expires_ms,
                cancellation_ms, is_upgraded, is_trial, is_intro_offer, signed_date_ms)
            VALUES ('production', 'a', 'a', 'monthly', 0, 1000, 500, false, false, false, 400);
            """)
        let store = try fixture.open()
        #expect(try fixture.scalar("SELECT max(version) FROM migrations") == .integer(Int64(latest)))
        let before = Transaction(
            transactionId: "a", productId: "monthly", purchase: Instant(milliseconds: 0), expires: Instant(milliseconds: 1000),
            cancellation: Instant(milliseconds: 500), signedDate: Instant(milliseconds: 400))
        let stored = try #require(try store.history(forUser: "u").transactions.first)
        #expect(stored == before)
        #expect(stored.revocationType == nil)
        #expect(stored.revocationPercentage == nil)
        var prorated = before
        prorated.signedDate = Instant(milliseconds: 600)
        prorated.revocationType = .refundProrated
        prorated.revocationPercentage = 25_000
        try store.save(transactions: [prorated], renewals: [])
        #expect(try store.history(forUser: "u").transactions == [prorated])
    }

    /// The outbox's heads (SQLite 17, PostgreSQL 13): a queue stored before keeps its order, its
    /// first pending message the head and the later ones waiting behind it.
    @Test(arguments: StoreBackend.tested) func outboxHeadsMigration_makesTheLaterPendingMessagesOfAQueueWait(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        try fixture.migrate(sqlite: 16, postgreSQL: 12)
        let body = backend == .sqlite ? "x'7b7d'" : "'\\x7b7d'"
        try fixture.execute("""
            INSERT INTO outbound_messages (id, kind, target, ordering_key, event_id, content_type, body, state, attempts, enqueued_ms, next_attempt_ms)
            VALUES (1, 'event', 'https://h.example/', 'ana', 'a1', 'application/json', \(body), 'delivered', 1, 0, 0),
                (2, 'event', 'https://h.example/', 'ana', 'a2', 'application/json', \(body), 'pending', 0, 0, 0),
                (3, 'event', 'https://h.example/', 'ana', 'a3', 'application/json', \(body), 'pending', 0, 0, 0),
                (4, 'event', 'https://h.example/', 'ben', 'b1', 'application/json', \(body), 'pending', 0, 0, 0);
            """)
        let store = try fixture.open()
        let claim = { () throws -> OutboundDelivery? in
            try store.inTransaction { () throws(StorageError) in try store.claimOutbound(now: Instant(milliseconds: 10), leaseUntil: Instant(milliseconds: 1_000), limit: 1).first }
        }
        let head = try #require(try claim())
        #expect(head.message.eventId == "a2")
        #expect(try claim()?.message.eventId == "b1")
        #expect(try claim() == nil)
        #expect(try store.inTransaction { () throws(StorageError) in try store.recordOutbound(head, outcome: .delivered(status: 200), now: Instant(milliseconds: 20)) })
        #expect(try claim()?.message.eventId == "a3")
    }

    /// Google Play's owners and voids (SQLite 19, PostgreSQL 15): a purchase stored before reads
    /// back naming no account until its next read, and a void stored before counts as recorded
    /// at its voided time, so it is forgotten 30 days after it when its token was never read.
    @Test(arguments: StoreBackend.tested) func googlePlayOwnersMigration_keepsPurchases_andDatesTheVoids(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let latest = try fixture.migrate(sqlite: 18, postgreSQL: 14)
        let (body, no) = backend == .sqlite ? ("x'7b7d'", "0") : ("'\\x7b7d'", "false")
        try fixture.execute("""
            INSERT INTO google_play_purchases (purchase_token, package_name, kind, play_product_id, state, acknowledged, environment, observed_ms,
                read_ms, body, ack_attempts)
            VALUES ('tok', 'com.example.monthly', 'subscription', 'monthly_sub', 'SUBSCRIPTION_STATE_ACTIVE', \(no), 'production', 10, 10, \(body), 0);
            INSERT INTO google_play_voids (purchase_token, order_id, voided_ms, prorated) VALUES ('tok', 'GPA.1', 1000, \(no)), ('gone', 'GPA.2', 1000, \(no));
            """)
        let store = try fixture.open()
        #expect(try fixture.scalar("SELECT max(version) FROM migrations") == .integer(Int64(latest)))
        let purchase = try #require(try store.googlePlayPurchase(token: "tok"))
        #expect(purchase.obfuscatedExternalAccountId == nil)
        #expect(try fixture.scalar("SELECT recorded_ms FROM google_play_voids WHERE purchase_token = 'gone'") == .integer(1000))
        let day = Instant.millisecondsPerDay
        _ = try store.inTransaction { () throws(StorageError) in
            try store.voidGooglePlayOrder(token: "new", orderId: "GPA.3", at: Instant(milliseconds: 0), prorated: false, now: Instant(milliseconds: 30 * day + 1001))
        }
        #expect(try fixture.scalar("SELECT purchase_token FROM google_play_voids ORDER BY purchase_token") == .text("new"))
        #expect(try fixture.scalar("SELECT count(*) FROM google_play_voids") == .integer(2))
        // Read again, naming its user: it is theirs.
        let order = GooglePlayOrder(purchaseToken: "tok", orderId: "GPA.1", productId: "monthly", start: Instant(milliseconds: 0), expiry: Instant(milliseconds: 2000), observed: Instant(milliseconds: 20))
        let observation = GooglePlayObservation(
            purchaseToken: "tok", state: .active, acknowledged: true, obfuscatedExternalAccountId: "ana", playProductId: "monthly_sub", orders: [order])
        #expect(try store.inTransaction { () throws(StorageError) in
            try store.storeGooglePlayObservation(observation, packageName: "com.example.monthly", kind: .subscription, body: [], now: Instant(milliseconds: 20))
        } == ["ana"])
        #expect(try store.googlePlayPurchase(token: "tok")?.obfuscatedExternalAccountId == "ana")
        #expect(try store.googlePlayOrders(token: "tok").map(\.refunded) == [Instant(milliseconds: 1000)])
    }
}
