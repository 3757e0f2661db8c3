import Dispatch
import Foundation
import Masthead
import MastheadPostgreSQL
import MastheadStorage
import MastheadTestSupport
import Synchronization
import Testing

/// Two instances writing the same new rows at once: the database decides, never the last writer.
/// The first connection commits only once the second is waiting for one of its locks, so the
/// second's write overlaps the first's.
@Suite(.enabled(if: !TestPostgreSQL.isSkipped, "MASTHEAD_SKIP_POSTGRES=1"))
struct PostgreSQLConcurrencyTests {
    static let waiting = "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()"

    /// Runs `first` in a transaction on one connection and, while it is open, `second` in a
    /// transaction on another; the first commits once the second waits for a lock. Answers the
    /// second's outcome.
    static func overlapping(
        _ url: String, first: (PostgreSQLStore) throws -> Void, second: @escaping @Sendable (PostgreSQLStore) throws -> Void
    ) throws -> Result<Void, any Error> {
        let one = try PostgreSQLStore(url: url)
        nonisolated(unsafe) let other = try PostgreSQLStore(url: url)
        let observer = try PostgreSQLConnection(url)
        let outcome = Mutex<Result<Void, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        try one.connection.inTransaction {
            try first(one)
            Thread {
                let result = Result { try other.connection.inTransaction { try second(other) } }
                outcome.withLock { $0 = result }
                done.signal()
            }.start()
            while try observer.scalar(waiting) == .integer(0) { usleep(1000) }
        }
        done.wait()
        return outcome.withLock { $0! }
    }

    /// Two unsigned copies of one new transaction stored at once: the stored copy is their merge
    /// (R2.3: the cancellation of one, the later expiry of the other), not the second alone.
    @Test func save_ofOneNewTransactionFromTwoConnections_storesTheirMerge() throws {
        let url = try TestPostgreSQL.freshDatabase()
        let refunded = Transaction(transactionId: "t1", productId: "monthly", purchase: Instant(milliseconds: 10), expires: Instant(milliseconds: 20), cancellation: Instant(milliseconds: 15))
        let renewed = Transaction(transactionId: "t1", productId: "monthly", purchase: Instant(milliseconds: 10), expires: Instant(milliseconds: 30))
        let second = try Self.overlapping(url, first: { try $0.save(transactions: [refunded], renewals: []) }, second: { try $0.save(transactions: [renewed], renewals: []) })
        #expect(throws: Never.self) { try second.get() }
        let stored = try PostgreSQLConnection(url).firstRow("SELECT cancellation_ms, expires_ms FROM transactions WHERE transaction_id = 't1'", []) {
            row throws(PostgreSQLError) in [try row.optionalInteger(0), try row.optionalInteger(1)]
        }
        #expect(stored == [15, 30])
    }

    /// Two users restoring one new subscription at once with `restore: keep`: the first keeps it,
    /// the second is refused as the receipt is in use.
    @Test func link_ofOneNewSubscriptionToTwoUsersAtOnce_isDecidedByTheDatabase() throws {
        let url = try TestPostgreSQL.freshDatabase()
        let transaction = Transaction(transactionId: "s1", productId: "monthly", purchase: Instant(milliseconds: 10), expires: Instant(milliseconds: 20))
        let now = Instant(milliseconds: 12)
        let second = try Self.overlapping(
            url, first: { _ = try $0.link(userId: "ana", transactions: [transaction], latestReceipt: nil, restore: .keep, now: now) },
            second: { _ = try $0.link(userId: "ben", transactions: [transaction], latestReceipt: nil, restore: .keep, now: now) })
        #expect(throws: StorageError.receiptAlreadyInUse(environment: "production", originalTransactionId: "s1", userId: "ana")) { try second.get() }
        #expect(try PostgreSQLStore(url: url, readOnly: true).users(linkedTo: ["s1"], environment: .production) == ["ana"])
    }
}
