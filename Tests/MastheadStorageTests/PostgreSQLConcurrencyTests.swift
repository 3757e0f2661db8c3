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

    /// A Pub/Sub message id recorded while another instance holds the Google Play purchases'
    /// lock waits for that lock before it writes anything, as every Google Play write, so that the
    /// two never wait on each other's locks the other way round (a deadlock); the holder's record
    /// of the same id comes first.
    @Test func googlePlayMessage_waitsForThePurchasesLockBeforeWriting() throws {
        let url = try TestPostgreSQL.freshDatabase()
        let one = try PostgreSQLStore(url: url)
        nonisolated(unsafe) let other = try PostgreSQLStore(url: url)
        let observer = try PostgreSQLConnection(url)
        let now = Instant(milliseconds: 10)
        let secondNew = Mutex<Result<Bool, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let firstNew = try one.connection.inTransaction { () throws -> Bool in
            try one.lockForNumbering("google_play_purchases")
            Thread {
                let result = Result { try other.connection.inTransaction { () throws -> Bool in try other.recordGooglePlayMessage("m-1", now: now) } }
                secondNew.withLock { $0 = result }
                done.signal()
            }.start()
            // Until the second waits for a lock, or has finished without waiting.
            while try observer.scalar(Self.waiting) == .integer(0), secondNew.withLock({ $0 == nil }) { usleep(1000) }
            return try one.recordGooglePlayMessage("m-1", now: now)
        }
        done.wait()
        #expect(firstNew)
        #expect(try secondNew.withLock { $0! }.get() == false)
    }

    /// An acknowledgement claimed while another instance holds the Google Play purchases' lock
    /// waits for that lock before it reads or locks any purchase, as every Google Play write, so
    /// that a claim and a read being stored never wait on each other's locks the other way round.
    @Test func googlePlayAcknowledgementClaim_waitsForThePurchasesLock() throws {
        let url = try TestPostgreSQL.freshDatabase()
        let one = try PostgreSQLStore(url: url)
        nonisolated(unsafe) let other = try PostgreSQLStore(url: url)
        let observer = try PostgreSQLConnection(url)
        let now = Instant(milliseconds: 10)
        let claimed = Mutex<Result<StoredGooglePlayPurchase?, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let waited = try one.connection.inTransaction { () throws -> Bool in
            try one.lockForNumbering("google_play_purchases")
            Thread {
                let result = Result {
                    try other.connection.inTransaction { () throws -> StoredGooglePlayPurchase? in
                        try other.claimGooglePlayAcknowledgement(now: now, leaseUntil: now.adding(milliseconds: 1000))
                    }
                }
                claimed.withLock { $0 = result }
                done.signal()
            }.start()
            // Until the claim waits for a lock, or has finished without waiting.
            while try observer.scalar(Self.waiting) == .integer(0), claimed.withLock({ $0 == nil }) { usleep(1000) }
            return claimed.withLock { $0 == nil }
        }
        done.wait()
        #expect(waited)
        #expect(try claimed.withLock { $0! }.get() == nil)
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

    /// Two readers redeeming one gift code at once: exactly one gets the grant, the other finds
    /// it redeemed.
    @Test func redeem_ofOneGiftCodeFromTwoConnections_givesOneGrant() throws {
        let url = try TestPostgreSQL.freshDatabase()
        let now = GiftCodeStoreTests.day("2020-03-01")
        _ = try PostgreSQLStore(url: url).createGiftCodes(hashes: [[7]], offer: GiftCodeStoreTests.offer, now: now)
        let firstOutcome = Mutex<GiftRedemption?>(nil)
        let secondOutcome = Mutex<GiftRedemption?>(nil)
        let second = try Self.overlapping(
            url, first: { store in let outcome = try store.redeemGiftCode(hash: [7], userId: "ana", now: now); firstOutcome.withLock { $0 = outcome } },
            second: { store in let outcome = try store.redeemGiftCode(hash: [7], userId: "ben", now: now); secondOutcome.withLock { $0 = outcome } })
        #expect(throws: Never.self) { try second.get() }
        guard case .redeemed = firstOutcome.withLock({ $0 }) else { Issue.record("the first did not redeem"); return }
        #expect(secondOutcome.withLock { $0 } == .alreadyRedeemed)
        let reader = try PostgreSQLStore(url: url, readOnly: true)
        #expect(try reader.history(forUser: "ana").grants.count == 1)
        #expect(try reader.history(forUser: "ben").grants.isEmpty)
    }

    /// Two users joining the last seat of a licence at once: the second waits for the first's
    /// lock on the licence and finds it full.
    @Test func join_ofTheLastSeatFromTwoConnections_neverOversells() throws {
        let url = try TestPostgreSQL.freshDatabase()
        var licence = LicenceStoreTests.licence
        licence.seats = 1
        let now = GiftCodeStoreTests.day("2020-03-01")
        _ = try PostgreSQLStore(url: url).putLicence(licence, now: now)
        let secondOutcome = Mutex<LicenceJoin?>(nil)
        let second = try Self.overlapping(
            url, first: { store in _ = try store.joinLicence("uni", userId: "ana", now: now) },
            second: { store in let outcome = try store.joinLicence("uni", userId: "ben", now: now); secondOutcome.withLock { $0 = outcome } })
        #expect(throws: Never.self) { try second.get() }
        #expect(secondOutcome.withLock { $0 } == .full(seats: 1))
        #expect(try PostgreSQLStore(url: url, readOnly: true).licence("uni")?.members == 1)
    }

    /// Two tokens of one Google Play chain stored at once by two instances (a resubscription read
    /// while the token it replaced is read): the second waits for the first, and the chain ends
    /// with one id and one user.
    @Test func googlePlay_twoTokensOfOneChainFromTwoConnections_endWithOneChainIdAndUser() throws {
        let url = try TestPostgreSQL.freshDatabase()
        let first = GooglePlayStoreTests.observation("b", linked: "a", orders: [GooglePlayStoreTests.order("b", "GPA.B", start: 200, expiry: 300)])
        let second = GooglePlayStoreTests.observation("a", state: .expired, orders: [GooglePlayStoreTests.order("a", "GPA.A", start: 0, expiry: 100)])
        let outcome = try Self.overlapping(
            url,
            first: { store in
                _ = try store.storeGooglePlayObservation(first, packageName: "p", kind: .subscription, body: [], now: Instant(milliseconds: 10))
                _ = try store.linkGooglePlayPurchase(token: "b", to: "ana")
            },
            second: { _ = try $0.storeGooglePlayObservation(second, packageName: "p", kind: .subscription, body: [], now: Instant(milliseconds: 10)) })
        #expect(throws: Never.self) { try outcome.get() }
        let store = try PostgreSQLStore(url: url, readOnly: true)
        #expect(try store.googlePlayPurchase(token: "b")?.chainId == "GPA.A")
        #expect(try store.googlePlayPurchase(token: "a")?.userId == "ana")
    }
}
