import Masthead
import MastheadSQLite
@testable import MastheadStorage
import MastheadPostgreSQL
import MastheadTestSupport
import Testing

/// The store keeps the offer and billing terms of signed transactions and renewal infos as the
/// engine holds them (the copy signed last gives them, R2.8), on both backends.
struct TermsStoreTests {
    /// Terms with every field: a win-back offer under a monthly commitment, an id in two Unicode spellings' first.
    static let purchaseTerms = PurchaseTerms(
        offerType: 4, offerIdentifier: "win-back-caf\u{E9}", offerPeriod: "P1M", appTransactionId: "704183259315648010",
        billingPlanType: "MONTHLY",
        commitment: PurchaseCommitment(billingPeriodNumber: 2, totalBillingPeriods: 12, expires: Instant(milliseconds: 31_536_000_000), price: 99_990))

    /// Renewal terms with every field.
    static let renewalTerms = RenewalTerms(
        appAccountToken: "7e3fb20b-4cdb-47cc-936d-99d65f608138", appTransactionId: "704183259315648010", offerType: 4,
        offerIdentifier: "win-back-1", offerPeriod: "P3M", eligibleWinBackOfferIds: ["win-back-1", "win-back-2"],
        renewalBillingPlanType: "BILLED_UPFRONT",
        commitment: RenewalCommitment(
            autoRenewProductId: "monthly", autoRenewStatus: 1, renewalBillingPlanType: "MONTHLY", renewalDate: Instant(milliseconds: 2000),
            renewalPrice: 119_880))

    /// Transaction `a` of subscription `a`, signed at `signed`, with `terms`.
    static func copy(signed: Int64, terms: PurchaseTerms?) -> Transaction {
        Transaction(
            transactionId: "a", productId: "monthly", purchase: Instant(milliseconds: 0), expires: Instant(milliseconds: 1000), offer: .winBack,
            signedDate: Instant(milliseconds: signed), terms: terms)
    }

    /// Signed renewal info of subscription `a`, signed at `signed`, with `terms`.
    static func renewal(signed: Int64, terms: RenewalTerms?) -> RenewalInfo {
        RenewalInfo(originalTransactionId: "a", productId: "monthly", autoRenewProductId: "monthly", autoRenewOn: true, evidence: Instant(milliseconds: signed), terms: terms)
    }

    /// A transaction's and a renewal info's terms are read back as saved, by this store and by another reader.
    @Test(arguments: StoreBackend.tested) func signedTerms_savedAndReadBack_keepEveryField(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try SignedCopyStoreTests.store(fixture)
        let transaction = Self.copy(signed: 200, terms: Self.purchaseTerms)
        let renewal = Self.renewal(signed: 200, terms: Self.renewalTerms)
        try store.save(transactions: [transaction], renewals: [renewal])
        for reader in [store, try fixture.open()] {
            let history = try reader.history(forUser: "u")
            let stored = try #require(history.transactions.first)
            #expect(stored.terms == Self.purchaseTerms)
            #expect(stored.terms?.offerIdentifier?.sameBytes(as: "win-back-caf\u{E9}") == true)
            #expect(stored == transaction)
            #expect(history.renewals.map(\.terms) == [Self.renewalTerms])
        }
    }

    /// A later signed copy gives its terms, an older one arriving afterwards changes nothing (R2.8).
    @Test(arguments: StoreBackend.tested) func laterSignedCopy_givesItsTerms_R2_8(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try SignedCopyStoreTests.store(fixture)
        let older = Self.copy(signed: 200, terms: PurchaseTerms(appTransactionId: "1"))
        let newer = Self.copy(signed: 300, terms: Self.purchaseTerms)
        try store.save(transactions: [older], renewals: [])
        try store.save(transactions: [newer], renewals: [])
        #expect(try store.history(forUser: "u").transactions == [newer])
        try store.save(transactions: [older], renewals: [])
        #expect(try store.history(forUser: "u").transactions.map(\.terms) == [Self.purchaseTerms])
        let without = Self.copy(signed: 400, terms: nil)
        try store.save(transactions: [without], renewals: [])
        #expect(try store.history(forUser: "u").transactions.map(\.terms) == [nil])
    }

    /// Two renewal infos that differ only in their terms are two infos, each kept once (R2.7);
    /// an id's other Unicode spelling is another id.
    @Test(arguments: StoreBackend.tested) func renewalInfosDifferingOnlyInTerms_areEachKept_R2_7(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try SignedCopyStoreTests.store(fixture)
        let composed = Self.renewal(signed: 200, terms: RenewalTerms(eligibleWinBackOfferIds: ["caf\u{E9}"]))
        let decomposed = Self.renewal(signed: 200, terms: RenewalTerms(eligibleWinBackOfferIds: ["cafe\u{301}"]))
        try store.save(transactions: [], renewals: [composed, decomposed, composed])
        try store.save(transactions: [], renewals: [decomposed])
        let stored = try store.history(forUser: "u").renewals
        #expect(stored.count == 2)
        #expect(stored.contains { RenewalInfo.isSame($0, as: composed) })
        #expect(stored.contains { RenewalInfo.isSame($0, as: decomposed) })
    }

    /// Stored terms that are not an object of the right types are refused, naming the column.
    @Test(arguments: StoreBackend.tested, [#"[]"#, #"{"offerType": "4"}"#, #"{"commitmentInfo": {"billingPeriodNumber": 4294967296}}"#, "{"])
    func malformedStoredTerms_areRefused_namingTheColumn(backend: StoreBackend, text: String) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try SignedCopyStoreTests.store(fixture)
        try store.save(transactions: [Self.copy(signed: 200, terms: Self.purchaseTerms)], renewals: [])
        try fixture.execute("UPDATE transactions SET terms = '\(text)'")
        #expect(throws: (any Error).self) { try store.history(forUser: "u") }
        do { _ = try store.history(forUser: "u") } catch { #expect("\(error)".contains("terms")) }
    }

    /// The terms migration (SQLite's 9th, PostgreSQL's 5th): a transaction and a renewal info
    /// stored at the schema before read back without terms, and a copy signed later gives them.
    @Test(arguments: StoreBackend.tested) func termsMigration_keepsTransactionsAndRenewals_withoutTerms(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        try fixture.migrate(sqlite: 8, postgreSQL: 4)
        try fixture.execute("""
            INSERT INTO users VALUES ('u', 0);
            INSERT INTO subscriptions VALUES ('production', 'a', 'u', NULL, 0);
            INSERT INTO transactions (environment, transaction_id, original_transaction_id, product_id, purchase_ms, expires_ms,
                is_upgraded, is_trial, is_intro_offer, offer, signed_date_ms)
            VALUES ('production', 'a', 'a', 'monthly', 0, 1000, false, false, false, 'winBack', 200);
            INSERT INTO renewal_history (environment, original_transaction_id, product_id, auto_renew_product_id, auto_renew_on,
                billing_retry, evidence_ms)
            VALUES ('production', 'a', 'monthly', 'monthly', true, false, 200);
            """)
        let store = try fixture.open()
        let history = try store.history(forUser: "u")
        #expect(history.transactions == [Self.copy(signed: 200, terms: nil)])
        #expect(history.renewals == [Self.renewal(signed: 200, terms: nil)])
        let newer = Self.copy(signed: 300, terms: Self.purchaseTerms)
        try store.save(transactions: [newer], renewals: [Self.renewal(signed: 300, terms: Self.renewalTerms)])
        let after = try store.history(forUser: "u")
        #expect(after.transactions == [newer])
        #expect(after.renewals.map(\.terms) == [nil, Self.renewalTerms])
    }
}
