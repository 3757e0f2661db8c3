import Foundation
import Masthead
import MastheadSQLite
import MastheadStorage
import MastheadSynthetic
import MastheadTestSupport
import Testing

/// The store merges copies of a transaction exactly as the engine does (R2.3, R2.8), whatever
/// order and grouping they arrive in, and keeps every field of the merged state.
struct SignedCopyStoreTests {
    /// A copy of transaction `id` of subscription `a`: signed at `signed` (unsigned when nil).
    static func copy(
        _ id: String = "a", signed: Int64?, revoked: Int64? = nil, expires: Int64 = 1000, offer: OfferKind? = nil, upgraded: Bool = false
    ) -> Transaction {
        Transaction(
            transactionId: id, originalTransactionId: "a", productId: "monthly", purchase: Instant(milliseconds: 0),
            expires: Instant(milliseconds: expires), cancellation: revoked.map(Instant.init(milliseconds:)), isUpgraded: upgraded, offer: offer,
            signedDate: signed.map(Instant.init(milliseconds:)))
    }

    /// A store on a fresh database, with subscription `a` linked to user `u`.
    static func store(_ fixture: StoreFixture) throws -> any EntitlementStore {
        let store = try fixture.open()
        _ = try store.link(userId: "u", transactions: [copy(signed: nil)], latestReceipt: nil, restore: .transfer, now: Instant(milliseconds: 0))
        return store
    }

    /// REFUND (signed at 200, revoked at 150) then REFUND_REVERSED (signed at 300, no revocation):
    /// in either order, and saved together or apart, the reversal stands.
    @Test(arguments: StoreBackend.tested, [false, true])
    func refundThenRefundReversed_inEitherOrder_leavesNoCancellation(backend: StoreBackend, together: Bool) throws {
        let refund = Self.copy(signed: 200, revoked: 150)
        let reversed = Self.copy(signed: 300)
        for order in [[refund, reversed], [reversed, refund]] {
            let fixture = try StoreFixture(backend)
            defer { fixture.remove() }
            let store = try Self.store(fixture)
            if together {
                try store.save(transactions: order, renewals: [])
            } else {
                for transaction in order { try store.save(transactions: [transaction], renewals: []) }
            }
            let stored = try store.history(forUser: "u").transactions
            #expect(stored == [reversed])
            #expect(stored.first?.countedCancellation == nil)
        }
    }

    /// A refund signed after the reversal refunds again.
    @Test(arguments: StoreBackend.tested) func refundSignedLast_wins(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try Self.store(fixture)
        for signed in [Self.copy(signed: 400, revoked: 350), Self.copy(signed: 200, revoked: 150), Self.copy(signed: 300)] {
            try store.save(transactions: [signed], renewals: [])
        }
        #expect(try store.history(forUser: "u").transactions.first?.countedCancellation == Instant(milliseconds: 350))
    }

    /// Version 1 and version 2 copies of one transaction: an unsigned cancellation later than the
    /// signed state counts, an earlier one does not, and the upgrade flag of either is kept.
    @Test(arguments: StoreBackend.tested) func unsignedAndSignedCopies_mergeByTheRule_inEitherOrder(backend: StoreBackend) throws {
        let cases: [(unsigned: Transaction, counted: Instant?)] = [
            (Self.copy(signed: nil, revoked: 500, upgraded: true), Instant(milliseconds: 500)),
            (Self.copy(signed: nil, revoked: 100), nil),
        ]
        let signed = Self.copy(signed: 300, offer: .offerCode)
        for (unsigned, counted) in cases {
            for order in [[unsigned, signed], [signed, unsigned]] {
                let fixture = try StoreFixture(backend)
                defer { fixture.remove() }
                let store = try Self.store(fixture)
                for transaction in order { try store.save(transactions: [transaction], renewals: []) }
                let stored = try #require(try store.history(forUser: "u").transactions.first)
                #expect(stored == unsigned.merged(with: signed))
                #expect(stored.countedCancellation == counted)
                #expect(stored.offer == .offerCode)
                #expect(stored.signedDate == Instant(milliseconds: 300))
                #expect(stored.isUpgraded == unsigned.isUpgraded)
            }
        }
    }

    /// Many copies of a few transactions, saved one by one in shuffled orders: the stored history
    /// is the engine's merge of all of them.
    @Test(arguments: StoreBackend.tested) func shuffledCopies_storeTheEnginesMerge(backend: StoreBackend) throws {
        var random = SeededGenerator(seed: 7)
        for round in 0..<20 {
            var copies: [Transaction] = []
            for _ in 0..<12 {
                let id = ["a", "b"][Int(random.next() % 2)]
                let signed: Int64? = random.next() % 3 == 0 ? nil : Int64(random.next() % 5) * 100
                let revoked: Int64? = random.next() % 2 == 0 ? nil : Int64(random.next() % 10) * 50
                let offer: OfferKind? = random.next() % 4 == 0 ? .promotional : nil
                copies.append(Self.copy(id, signed: signed, revoked: revoked, expires: 1000 + Int64(random.next() % 3) * 100, offer: offer, upgraded: random.next() % 7 == 0))
            }
            try Self.expectStoredAsMerged(copies, backend: backend, random: &random, round: round)
        }
    }

    /// `transferIfInactive` reads the counted cancellation: a refund the reversal undid leaves the
    /// subscription active (not moved), an unsigned refund newer than the signed state makes it inactive.
    /// Saves `copies` in batches of one to three (sizes drawn from `random`) on a new store of
    /// `backend`, and expects the stored history to be the engine's merge of all of them.
    static func expectStoredAsMerged(_ copies: [Transaction], backend: StoreBackend, random: inout SeededGenerator, round: Int) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try Self.store(fixture)
        var index = 0
        while index < copies.count {
            let size = 1 + Int(random.next() % 3)
            try store.save(transactions: Array(copies[index..<min(index + size, copies.count)]), renewals: [])
            index += size
        }
        #expect(try store.history(forUser: "u").transactions == PurchaseHistory(transactions: copies).transactions, "round \(round)")
    }

    @Test(arguments: StoreBackend.tested) func transferIfInactive_usesTheCountedCancellation(backend: StoreBackend) throws {
        let now = Instant(milliseconds: 800)
        let cases: [([Transaction], moves: Bool)] = [
            ([Self.copy(signed: 200, revoked: 150), Self.copy(signed: 300)], false),
            ([Self.copy(signed: 300), Self.copy(signed: nil, revoked: 500)], true),
            ([Self.copy(signed: 300), Self.copy(signed: nil, revoked: 100)], false),
        ]
        for (copies, moves) in cases {
            let fixture = try StoreFixture(backend)
            defer { fixture.remove() }
            let store = try Self.store(fixture)
            try store.save(transactions: copies, renewals: [])
            let moved = Result { try store.link(userId: "v", transactions: [copies[0]], latestReceipt: nil, restore: .transferIfInactive, now: now) }
            #expect((try? moved.get()) == (moves ? ["u"] : nil), "\(copies)")
        }
    }

    /// A row whose offer the schema does not know is an error naming the column.
    @Test(arguments: StoreBackend.tested) func history_throws_whenAnOfferIsUnknown(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try Self.store(fixture)
        try store.save(transactions: [Self.copy(signed: 100, offer: .winBack)], renewals: [])
        try fixture.execute("UPDATE transactions SET offer = 'loyalty'")
        #expect(throws: StorageError.self) { try store.history(forUser: "u") }
        do { _ = try store.history(forUser: "u") } catch { #expect("\(error)".contains("offer")) }
    }
}
