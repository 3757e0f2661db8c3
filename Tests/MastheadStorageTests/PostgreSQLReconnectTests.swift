import Masthead
import MastheadPostgreSQL
@testable import MastheadStorage
import MastheadTestSupport
import Testing

/// A store whose connection the server closed (a restart, a failover, an administrator's
/// `pg_terminate_backend`) connects again: the statement that met the closed connection fails,
/// nothing of it applied, and the store works again from the next call on.
@Suite(.enabled(if: !TestPostgreSQL.isSkipped, "MASTHEAD_SKIP_POSTGRES=1"))
struct PostgreSQLReconnectTests {
    /// Ends the session of `store`'s connection from another connection.
    static func terminate(_ store: PostgreSQLStore, url: String) throws {
        let pid = try #require(try store.connection.scalar("SELECT pg_backend_pid()"))
        guard case .integer(let number) = pid else { Issue.record("pg_backend_pid() is \(pid)"); return }
        let administrator = try PostgreSQLConnection(url)
        #expect(try administrator.scalar("SELECT pg_terminate_backend($1::int)", [.integer(number)]) == .bool(true))
    }

    @Test func writer_whoseSessionWasEnded_failsOnce_thenWritesAgain() throws {
        let url = try TestPostgreSQL.freshDatabase()
        let store = try PostgreSQLStore(url: url)
        try store.save(transactions: [StoreTests.transaction("a", from: 0, to: 100)], renewals: [])
        try Self.terminate(store, url: url)
        #expect(throws: StorageError.self) {
            try store.inTransaction { () throws(StorageError) in
                try store.save(transactions: [StoreTests.transaction("lost", from: 0, to: 100)], renewals: [])
            }
        }
        try store.inTransaction { () throws(StorageError) in
            try store.save(transactions: [StoreTests.transaction("b", from: 0, to: 100)], renewals: [])
        }
        let stored = try store.history(environment: .production, originalTransactionId: "b").transactions.map(\.transactionId)
        #expect(stored == ["b"])
        #expect(try store.history(environment: .production, originalTransactionId: "lost").transactions.isEmpty)
    }

    @Test func readOnlyStore_reconnected_stillRefusesWrites() throws {
        let url = try TestPostgreSQL.freshDatabase()
        _ = try PostgreSQLStore(url: url)
        let reader = try PostgreSQLStore(url: url, readOnly: true)
        try Self.terminate(reader, url: url)
        #expect(throws: StorageError.self) { _ = try reader.userCount() }
        #expect(try reader.userCount() == 0)
        #expect(throws: StorageError.self) { try reader.upsertIssue(publicationId: "p", issue: Issue(id: "x", published: Instant(milliseconds: 1))) }
    }
}
