import Masthead
import Testing

/// The offer and billing terms a transaction or renewal info carries: the copy signed last gives
/// them (R2.8) and they compare by their exact bytes.
struct PurchaseTermsTests {
    static let winBack = PurchaseTerms(offerType: 4, offerIdentifier: "come-back", offerPeriod: "P1M", appTransactionId: "7")
    static let commitment = PurchaseTerms(
        appTransactionId: "7", billingPlanType: "MONTHLY",
        commitment: PurchaseCommitment(billingPeriodNumber: 2, totalBillingPeriods: 12, expires: Instant(milliseconds: 5000), price: 99_990))

    static func copy(signed: Int64?, terms: PurchaseTerms?) -> Transaction {
        Transaction(
            transactionId: "a", productId: "monthly", purchase: Instant(milliseconds: 0), expires: Instant(milliseconds: 1000),
            signedDate: signed.map(Instant.init(milliseconds:)), terms: terms)
    }

    @Test func R2_8_theCopySignedLast_givesItsTerms_inEitherOrder() {
        let older = Self.copy(signed: 200, terms: Self.winBack)
        let newer = Self.copy(signed: 300, terms: Self.commitment)
        #expect(older.merged(with: newer).terms == Self.commitment)
        #expect(newer.merged(with: older).terms == Self.commitment)
        let newerWithout = Self.copy(signed: 300, terms: nil)
        #expect(older.merged(with: newerWithout).terms == nil)
        // An unsigned copy adds no terms to a signed one.
        #expect(Self.copy(signed: nil, terms: Self.winBack).merged(with: newerWithout).terms == nil)
    }

    @Test func R2_8_copiesSignedAtOneInstant_keepTermsWhateverTheOrder() {
        let one = Self.copy(signed: 200, terms: Self.winBack)
        let other = Self.copy(signed: 200, terms: Self.commitment)
        let none = Self.copy(signed: 200, terms: nil)
        #expect(one.merged(with: other) == other.merged(with: one))
        #expect(one.merged(with: none).terms == Self.winBack)
        #expect(none.merged(with: one).terms == Self.winBack)
    }

    @Test func terms_compareAndHashByExactBytes() {
        let composed = PurchaseTerms(offerIdentifier: "caf\u{E9}")
        let decomposed = PurchaseTerms(offerIdentifier: "cafe\u{301}")
        #expect(composed != decomposed)
        #expect(Set([composed, decomposed, composed]).count == 2)
        #expect((composed < decomposed) != (decomposed < composed))
        #expect(Self.copy(signed: 1, terms: composed) != Self.copy(signed: 1, terms: decomposed))
        let ids = RenewalTerms(eligibleWinBackOfferIds: ["caf\u{E9}"])
        #expect(ids != RenewalTerms(eligibleWinBackOfferIds: ["cafe\u{301}"]))
        #expect(ids != RenewalTerms(eligibleWinBackOfferIds: ["caf\u{E9}", ""]))
        #expect(RenewalTerms(eligibleWinBackOfferIds: []) != RenewalTerms())
        #expect(PurchaseTerms(commitment: PurchaseCommitment()) != PurchaseTerms())
        #expect(PurchaseTerms().isEmpty && !PurchaseTerms(commitment: PurchaseCommitment()).isEmpty)
    }

    /// The offer both kinds of terms hold, and their commitments, compare by exact bytes too; the
    /// offer's fields read and write under Apple's names.
    @Test func offersAndCommitments_compareByExactBytes_andTheOfferReadsUnderApplesNames() {
        #expect(TermsOffer(identifier: "caf\u{E9}") != TermsOffer(identifier: "cafe\u{301}"))
        #expect(Set([TermsOffer(identifier: "caf\u{E9}"), TermsOffer(identifier: "cafe\u{301}")]).count == 2)
        #expect(RenewalCommitment(autoRenewProductId: "caf\u{E9}") != RenewalCommitment(autoRenewProductId: "cafe\u{301}"))
        #expect(RenewalCommitment(renewalPrice: 1) != RenewalCommitment(renewalPrice: 2))
        var terms = RenewalTerms(offerType: 4, offerIdentifier: "come-back", offerPeriod: "P1M")
        #expect(terms.offer == TermsOffer(type: 4, identifier: "come-back", period: "P1M"))
        terms.offerIdentifier = nil
        #expect(terms.offer == TermsOffer(type: 4, period: "P1M") && terms.offerIdentifier == nil && terms.offerType == 4)
        // Absent fields order first, an absent commitment before any.
        #expect(PurchaseTerms() < PurchaseTerms(offerType: 1))
        #expect(PurchaseTerms(appTransactionId: "7") < PurchaseTerms(appTransactionId: "7", commitment: PurchaseCommitment()))
        #expect(PurchaseTerms(offerType: 1) < PurchaseTerms(offerType: 2) && PurchaseTerms(offerType: -1) < PurchaseTerms(offerType: 1))
    }

    /// Renewal infos that differ only in their terms are ordered alike whatever order they arrive in (R2.7).
    @Test func R2_7_renewalInfosDifferingOnlyInTerms_orderAlikeInAnyArrivalOrder() {
        func info(_ offers: [String]) -> RenewalInfo {
            RenewalInfo(originalTransactionId: "a", productId: "monthly", autoRenewOn: true, evidence: Instant(milliseconds: 100), terms: RenewalTerms(eligibleWinBackOfferIds: offers))
        }
        let infos = [info(["b"]), info(["a"]), info(["a", "b"])]
        let forward = PurchaseHistory(renewals: infos).renewals
        #expect(forward.count == 3)
        #expect(PurchaseHistory(renewals: infos.reversed()).renewals == forward)
        #expect(PurchaseHistory(renewals: [infos[1], infos[2], infos[0]]).renewals == forward)
    }

    /// A transaction's terms take part in its equality: set, it is another state; cleared, the same again.
    @Test func termsSetAndCleared_takePartInEquality() {
        var transaction = Self.copy(signed: 1, terms: nil)
        let before = transaction
        transaction.terms = Self.winBack
        #expect(transaction != before)
        #expect(transaction.terms == Self.winBack)
        transaction.terms = nil
        #expect(transaction == before)
    }

    /// Terms boxed apart compare and hash by the terms they hold, not by their boxes.
    @Test func boxedTerms_compareAndHashByTheirTerms() {
        let one = Boxed(wrappedValue: Self.winBack)
        let other = Boxed(wrappedValue: PurchaseTerms(offerType: 4, offerIdentifier: "come-back", offerPeriod: "P1M", appTransactionId: "7"))
        #expect(one == other)
        #expect(one.hashValue == other.hashValue)
        #expect(one != Boxed(wrappedValue: Self.commitment))
        #expect(one != Boxed(wrappedValue: nil))
        var cleared = one
        cleared.wrappedValue = nil
        #expect(cleared == Boxed<PurchaseTerms>(wrappedValue: nil) && cleared.wrappedValue == nil)
    }
}
