import Foundation
import Masthead
import MastheadSQLite
@testable import MastheadStorage
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
        #expect(try store.database.scalar("SELECT max(version) FROM migrations") == .integer(4))
        #expect(try store.history(forUser: "u").transactions.map(\.transactionId) == ["a"])
        #expect(try store.database.scalar("SELECT signed_date_ms FROM transactions") == .null)
        #expect(try store.notificationCount() == 1)
        #expect(try store.database.scalar("SELECT count(*) FROM notifications WHERE notification_uuid IS NULL AND subtype IS NULL") == .integer(1))
        // The new tables are there and empty.
        #expect(try store.appAccountTokens(forUser: "u").isEmpty)
        #expect(try store.rejectedNotifications(limit: 10, withBodies: false).isEmpty)
    }
}
