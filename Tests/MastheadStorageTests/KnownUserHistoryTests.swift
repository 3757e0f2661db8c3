import Masthead
import MastheadPostgreSQL
import MastheadSQLite
@testable import MastheadStorage
import MastheadTestSupport
import Testing

/// One statement tells whether a user is known and, from their stored row, their history
/// (``StoreReader/knownUserHistory(_:)``): an unknown user, a known one with or without a row,
/// a row of another version, a corrupt row, and a database of the schema before the table.
struct KnownUserHistoryTests {
    /// What the store answers, as text a test can compare: the stored history's bytes in the format.
    static func read(_ store: any EntitlementStore, _ userId: String) throws -> String {
        switch try store.knownUserHistory(userId) {
        case .unknownUser: "unknown"
        case .notStored: "not stored"
        case .stored(let history): "stored \(StoredHistory.bytes(history))"
        }
    }

    /// Writes `bytes` as the user's `user_histories` row.
    static func storeRow(_ store: any EntitlementStore, _ userId: String, _ bytes: [UInt8]) throws {
        switch store {
        case let store as SQLiteStore: try store.run(StoredHistorySQL.write, [.text(userId), .bytes(bytes)])
        case let store as PostgreSQLStore: try store.run(StoredHistorySQL.write, [.text(userId), .bytes(bytes)])
        default: Issue.record("a store of neither backend")
        }
    }

    @Test(arguments: StoreBackend.tested)
    func knownUserHistory_tellsEachCase(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        let transactions = [StoreTests.transaction("a", from: 10, to: 20), StoreTests.transaction("b", original: "a", from: 20, to: 30)]
        try store.save(transactions: transactions, renewals: [])
        _ = try store.link(userId: "caf\u{E9}", transactions: transactions, latestReceipt: "R1", restore: .transfer, now: Instant(milliseconds: 5))
        try fixture.execute("DELETE FROM user_histories")

        // Never seen, and the other spelling of a known user's id: unknown.
        #expect(try Self.read(store, "nobody") == "unknown")
        #expect(try Self.read(store, "cafe\u{301}") == "unknown")
        // Known without a row: read from the tables.
        #expect(try Self.read(store, "caf\u{E9}") == "not stored")
        // Known with a row: the row's history, the tables' as the write stored it.
        try store.recordChanges([.user("caf\u{E9}")], origin: 1)
        let fromTables = StoredHistory.bytes(try store.history(forUser: "caf\u{E9}"))
        #expect(try Self.read(store, "caf\u{E9}") == "stored \(fromTables)")
        #expect(try store.history(forUser: "caf\u{E9}").transactions.map(\.transactionId) == ["a", "b"])
        // A row of another format version: read from the tables.
        var otherVersion = fromTables
        otherVersion[0] = StoredHistory.version + 1
        try Self.storeRow(store, "caf\u{E9}", otherVersion)
        #expect(try Self.read(store, "caf\u{E9}") == "not stored")
        // A corrupt row: the error naming the user, as the snapshot's read throws it.
        try Self.storeRow(store, "caf\u{E9}", Array(fromTables.dropLast()))
        #expect {
            _ = try store.knownUserHistory("caf\u{E9}")
        } throws: { error in
            guard case StorageError.storedHistory(let userId, _) = error else { return false }
            return userId == "caf\u{E9}"
        }
        #expect(throws: StorageError.self) { _ = try store.history(forUser: "caf\u{E9}") }
    }

    /// A read-only store on a database of the schema before `user_histories` asks nothing: every
    /// user, known or not, is read in the snapshot from the tables.
    @Test(arguments: StoreBackend.tested)
    func schemaBeforeTheTable_isNotStored_forEveryUser(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        try fixture.migrate(sqlite: SQLiteSchema.migrator.migrations.count - 1, postgreSQL: PostgreSQLSchema.migrator.migrations.count - 1)
        let earlier = try fixture.openReadOnly()
        #expect(try Self.read(earlier, "nobody") == "not stored")
        _ = try fixture.open()
        #expect(try Self.read(try fixture.openReadOnly(), "nobody") == "unknown")
    }
}
