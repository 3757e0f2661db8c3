import Masthead
import MastheadSQLite
import MastheadStorage
import Testing

/// Text goes into SQLite and comes back byte for byte, NUL included.
struct StatementTests {
    static let now = Instant(milliseconds: 5)

    @Test func text_withNUL_isNeitherCutNorConfused_whenBoundAndRead() throws {
        let path = StoreTests.temporaryPath()
        defer { StoreTests.remove(path) }
        let store = try SQLiteStore(path: path)
        _ = try store.link(userId: "victim", transactions: [StoreTests.transaction("v", from: 0, to: 10)], latestReceipt: nil, restore: .transfer, now: Self.now)
        #expect(try store.userExists("victim\u{0}x") == false)
        try store.save(transactions: [StoreTests.transaction("c", from: 0, to: 10)], renewals: [])
        _ = try store.link(userId: "carol\u{0}evil", transactions: [StoreTests.transaction("c", from: 0, to: 10)], latestReceipt: nil, restore: .transfer, now: Self.now)
        #expect(try store.userIds(after: nil, limit: 10) == ["carol\u{0}evil", "victim"])
        #expect(try store.userExists("carol") == false)
        #expect(try store.history(forUser: "carol\u{0}evil").transactions.map(\.transactionId) == ["c"])
        #expect(try store.history(forUser: "carol").transactions.isEmpty)
    }

    @Test func emptyText_isStoredAsText_notNULL() throws {
        let path = StoreTests.temporaryPath()
        defer { StoreTests.remove(path) }
        let store = try SQLiteStore(path: path)
        try store.recordLatestReceipt("", environment: .production, originalTransactionIds: ["e"])
        #expect(try store.database.scalar("SELECT typeof(latest_receipt) FROM pending_receipts") == .text("text"))
    }
}
