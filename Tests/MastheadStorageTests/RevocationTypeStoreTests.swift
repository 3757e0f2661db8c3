import Masthead
import MastheadStorage
import MastheadSynthetic
import MastheadTestSupport
import Testing

/// The store keeps how Apple revoked a transaction (`revocationType`, `revocationPercentage`)
/// with its signed state (R5.3), and writes what the merge of copies gives (R2.8).
struct RevocationTypeStoreTests {
    /// A copy of transaction `id` of subscription `a`, signed at `signed` (unsigned when nil),
    /// revoked at `revoked` as `type` says.
    static func copy(
        _ id: String = "a", signed: Int64?, revoked: Int64? = nil, type: RevocationType? = nil, percentage: Int32? = nil
    ) -> Transaction {
        Transaction(
            transactionId: id, originalTransactionId: "a", productId: "monthly", purchase: Instant(milliseconds: 0),
            expires: Instant(milliseconds: 1000), cancellation: revoked.map(Instant.init(milliseconds:)),
            signedDate: signed.map(Instant.init(milliseconds:)), revocationType: type, revocationPercentage: percentage)
    }

    /// Revocations as signed data gives them: a prorated refund, a Family Sharing revocation and
    /// a type Apple adds later, with their shares (or none).
    static let revocations: [(RevocationType, Int32?)] = [
        (.refundProrated, 50_000), (.familyRevoke, nil), (RevocationType(rawValue: "REFUND_SOMEDAY"), 100_000),
    ]

    /// Each revocation is read back as saved: the type as its bytes, the share.
    @Test(arguments: StoreBackend.tested, revocations)
    func signedRevocation_savedAndReadBack_keepsTypeAndPercentage_R5_3(backend: StoreBackend, revocation: (RevocationType, Int32?)) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try SignedCopyStoreTests.store(fixture)
        let revoked = Self.copy(signed: 200, revoked: 150, type: revocation.0, percentage: revocation.1)
        try store.save(transactions: [revoked], renewals: [])
        let stored = try #require(try store.history(forUser: "u").transactions.first)
        #expect(stored.revocationType?.rawValue == revocation.0.rawValue)
        #expect(stored.revocationPercentage == revocation.1)
        #expect(stored == revoked)
        #expect(stored.cancellationEndsTransaction == revocation.0.endsTransaction)
        // A reader opened afterwards (another connection) reads the same.
        #expect(try fixture.open().history(forUser: "u").transactions == [revoked])
    }

    /// A prorated refund, then a later signed copy without a revocation (the refund reversed):
    /// the type and share go with the cancellation, in either order of arrival.
    @Test(arguments: StoreBackend.tested)
    func laterSignedCopyWithoutRevocation_clearsTypeAndPercentage_R5_3(backend: StoreBackend) throws {
        let prorated = Self.copy(signed: 200, revoked: 150, type: .refundProrated, percentage: 50_000)
        let reversed = Self.copy(signed: 300)
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try SignedCopyStoreTests.store(fixture)
        try store.save(transactions: [prorated], renewals: [])
        #expect(try store.history(forUser: "u").transactions == [prorated])
        try store.save(transactions: [reversed], renewals: [])
        let stored = try #require(try store.history(forUser: "u").transactions.first)
        #expect(stored.revocationType == nil)
        #expect(stored.revocationPercentage == nil)
        #expect(stored == reversed)
        // The older refund arriving after the reversal changes nothing; a newer one gives its type again.
        try store.save(transactions: [prorated], renewals: [])
        #expect(try store.history(forUser: "u").transactions == [reversed])
        let revokedAgain = Self.copy(signed: 400, revoked: 350, type: .familyRevoke)
        try store.save(transactions: [revokedAgain], renewals: [])
        #expect(try store.history(forUser: "u").transactions == [revokedAgain])
    }

    /// Signed and unsigned copies with every kind of revocation, saved one group at a time in
    /// seeded orders: the stored history is the engine's merge of all of them, types included.
    @Test(arguments: StoreBackend.tested) func shuffledRevokedCopies_storeTheEnginesMerge_R5_3(backend: StoreBackend) throws {
        let types: [RevocationType?] = [nil, .refundFull, .refundProrated, .familyRevoke, RevocationType(rawValue: "REFUND_SOMEDAY")]
        var random = SeededGenerator(seed: 53)
        for round in 0..<12 {
            var copies: [Transaction] = []
            for _ in 0..<10 {
                let id = ["a", "b"][Int(random.next() % 2)]
                let signed: Int64? = random.next() % 3 == 0 ? nil : Int64(random.next() % 4) * 100
                let revoked: Int64? = random.next() % 3 == 0 ? nil : Int64(random.next() % 6) * 50
                let type = revoked == nil ? nil : types[Int(random.next() % UInt64(types.count))]
                let percentage: Int32? = type == nil || random.next() % 2 == 0 ? nil : Int32(random.next() % 100_001)
                copies.append(Self.copy(id, signed: signed, revoked: revoked, type: type, percentage: percentage))
            }
            try SignedCopyStoreTests.expectStoredAsMerged(copies, backend: backend, random: &random, round: round)
        }
    }

    /// A share the SQLite column holds but a transaction cannot (beyond 32 bits) is an error naming
    /// the column (PostgreSQL's `integer` column cannot hold one).
    @Test func history_throws_whenAPercentageDoesNotFitIn32Bits() throws {
        let fixture = try StoreFixture(.sqlite)
        defer { fixture.remove() }
        let store = try SignedCopyStoreTests.store(fixture)
        try store.save(transactions: [Self.copy(signed: 200, revoked: 150, type: .refundProrated, percentage: 1)], renewals: [])
        try fixture.execute("UPDATE transactions SET revocation_percentage = 4294967296")
        #expect(throws: StorageError.self) { try store.history(forUser: "u") }
        do { _ = try store.history(forUser: "u") } catch { #expect("\(error)".contains("revocation_percentage")) }
    }
}
