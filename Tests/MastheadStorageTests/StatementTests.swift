import Masthead
import MastheadPostgreSQL
import MastheadSQLite
import MastheadStorage
import MastheadTestSupport
import Testing

/// Text goes into SQLite and comes back byte for byte, NUL included.
struct StatementTests {
    static let now = Instant(milliseconds: 5)

    /// SQLite stores a NUL as any other character; PostgreSQL's text cannot hold one, so that
    /// store refuses such text with an error naming the parameter. Neither cuts it short, so
    /// `victim\0x` never reaches `victim`'s data.
    @Test(arguments: StoreBackend.tested) func text_withNUL_isNeitherCutNorConfused_whenBoundAndRead(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        _ = try store.link(userId: "victim", transactions: [StoreTests.transaction("v", from: 0, to: 10)], latestReceipt: nil, restore: .transfer, now: Self.now)
        try store.save(transactions: [StoreTests.transaction("c", from: 0, to: 10)], renewals: [])
        switch backend {
        case .sqlite:
            #expect(try store.userExists("victim\u{0}x") == false)
            _ = try store.link(userId: "carol\u{0}evil", transactions: [StoreTests.transaction("c", from: 0, to: 10)], latestReceipt: nil, restore: .transfer, now: Self.now)
            #expect(try store.userIds(after: nil, limit: 10) == ["carol\u{0}evil", "victim"])
            #expect(try store.userExists("carol") == false)
            #expect(try store.history(forUser: "carol\u{0}evil").transactions.map(\.transactionId) == ["c"])
        case .postgreSQL:
            #expect(throws: StorageError.postgreSQL(.textWithNUL(parameter: 1, sql: "SELECT 1 FROM users WHERE user_id = $1"))) {
                try store.userExists("victim\u{0}x")
            }
            #expect(throws: StorageError.self) {
                try store.link(userId: "carol\u{0}evil", transactions: [StoreTests.transaction("c", from: 0, to: 10)], latestReceipt: nil, restore: .transfer, now: Self.now)
            }
            #expect(try store.userIds(after: nil, limit: 10) == ["victim"])
        }
        #expect(try store.history(forUser: "carol").transactions.isEmpty)
    }

    @Test(arguments: StoreBackend.tested) func emptyText_isStoredAsText_notNULL(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        try store.recordLatestReceipt("", environment: .production, originalTransactionIds: ["e"])
        #expect(try fixture.scalar("SELECT count(*) FROM pending_receipts WHERE latest_receipt = ''") == .integer(1))
    }
}
