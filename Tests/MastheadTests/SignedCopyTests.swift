import Masthead
import Testing

/// R2.8: a signed record is Apple's state of a transaction as of its `signedDate`.
struct SignedCopyTests {
    /// A signed copy of auto-renewable transaction `id`, signed at `signed`.
    static func signed(
        _ id: String = "a", signed: String, revoked: String? = nil, expires: String = "2020-03-10T00:00", upgraded: Bool = false,
        environment: Environment = .production
    ) -> Transaction {
        Transaction(
            transactionId: id, productId: "monthly", purchase: Mock.instant("2020-02-10T00:00"), expires: Mock.instant(expires),
            cancellation: revoked.map(Mock.instant), isUpgraded: upgraded, environment: environment, signedDate: Mock.instant(signed))
    }

    @Test func R2_8_refundThenRefundReversed_restoresAccess_inEitherOrder() {
        let refund = Self.signed(signed: "2020-02-20T00:00", revoked: "2020-02-20T00:00")
        let reversed = Self.signed(signed: "2020-02-25T00:00")
        for order in [[refund, reversed], [reversed, refund], [refund, reversed, refund]] {
            let history = PurchaseHistory(transactions: order)
            #expect(history.transactions.count == 1)
            #expect(history.transactions[0].countedCancellation == nil)
            #expect(history.transactions[0].signedDate == Mock.instant("2020-02-25T00:00"))
            let answer = Mock.evaluate(order, at: "2020-03-05T00:00")
            #expect(answer.readableIssueIds == ["2020-02", "2020-03"])
            #expect(answer.refunded.isEmpty)
        }
    }

    @Test func R2_8_refundSignedAfterTheReversedOne_refundsAgain() {
        let copies = [
            Self.signed(signed: "2020-02-20T00:00", revoked: "2020-02-20T00:00"), Self.signed(signed: "2020-02-25T00:00"),
            Self.signed(signed: "2020-03-01T00:00", revoked: "2020-03-01T00:00"),
        ]
        let history = PurchaseHistory(transactions: copies.reversed())
        #expect(history.transactions[0].countedCancellation == Mock.instant("2020-03-01T00:00"))
        #expect(Mock.evaluate(copies, at: "2020-03-05T00:00").readable.isEmpty)
    }

    @Test func R2_8_unsignedCopies_stillMergeWithTheEarliestCancellation_R2_3() {
        let late = Mock.renewal("a", "monthly", "2020-02-10T00:00", "2020-03-10T00:00", cancelled: "2020-03-01T00:00")
        let early = Mock.renewal("a", "monthly", "2020-02-10T00:00", "2020-03-10T00:00", cancelled: "2020-02-20T00:00")
        let history = PurchaseHistory(transactions: [late, early])
        #expect(history.transactions[0].countedCancellation == Mock.instant("2020-02-20T00:00"))
        #expect(history.transactions[0].signedDate == nil)
    }

    @Test func R2_8_unsignedCancellation_countsOnlyWhenLaterThanTheSignedState() {
        let signed = Self.signed(signed: "2020-02-25T00:00")
        let refundedBefore = Mock.renewal("a", "monthly", "2020-02-10T00:00", "2020-03-10T00:00", cancelled: "2020-02-20T00:00")
        let refundedAfter = Mock.renewal("a", "monthly", "2020-02-10T00:00", "2020-03-10T00:00", cancelled: "2020-03-01T00:00")
        // Apple signed a state without a refund after the unsigned copy's refund: it was reversed.
        let superseded = PurchaseHistory(transactions: [refundedBefore, signed]).transactions[0]
        #expect(superseded.countedCancellation == nil)
        #expect(superseded.unsignedCancellation == Mock.instant("2020-02-20T00:00"))
        // A refund after the signed state is news it could not carry.
        let news = PurchaseHistory(transactions: [signed, refundedAfter]).transactions[0]
        #expect(news.countedCancellation == Mock.instant("2020-03-01T00:00"))
        #expect(news.cancellation == nil)
        // A newer signed state without the refund supersedes that news in turn.
        let later = PurchaseHistory(transactions: [signed, refundedAfter, Self.signed(signed: "2020-03-02T00:00")]).transactions[0]
        #expect(later.countedCancellation == nil)
    }

    @Test func R2_8_signedState_givesEveryField_unsignedCopiesOnlyTheirCancellationAndUpgrade() {
        let unsigned = Transaction(
            transactionId: "a", productId: "monthly", purchase: Mock.instant("2020-02-01T00:00"), expires: Mock.instant("2020-04-10T00:00"),
            cancellation: Mock.instant("2020-03-05T00:00"), isUpgraded: true, isTrial: true)
        let signed = Self.signed(signed: "2020-03-01T00:00")
        let merged = signed.merged(with: unsigned)
        #expect(merged == unsigned.merged(with: signed))
        #expect(merged.purchase == signed.purchase)
        #expect(merged.expires == signed.expires)
        #expect(!merged.isTrial)
        #expect(merged.isUpgraded)
        #expect(merged.countedCancellation == Mock.instant("2020-03-05T00:00"))
    }

    @Test func R2_8_copiesSignedAtTheSameInstant_combineFieldByField() {
        let one = Self.signed(signed: "2020-02-25T00:00", revoked: "2020-02-28T00:00", expires: "2020-03-10T00:00")
        let other = Self.signed(signed: "2020-02-25T00:00", revoked: "2020-02-26T00:00", expires: "2020-03-11T00:00")
        let merged = one.merged(with: other)
        #expect(merged == other.merged(with: one))
        #expect(merged.cancellation == Mock.instant("2020-02-26T00:00"))
        #expect(merged.expires == Mock.instant("2020-03-11T00:00"))
    }

    @Test func R2_8_signedAndUnsignedCopies_mergeBySameEnvironmentAndId_R14() {
        let production = Self.signed(signed: "2020-02-25T00:00")
        let sandbox = Mock.renewal("a", "monthly", "2020-02-10T00:00", "2020-03-10T00:00", cancelled: "2020-03-01T00:00", environment: .sandbox)
        let other = Mock.renewal("b", "monthly", "2020-02-10T00:00", "2020-03-10T00:00", cancelled: "2020-03-01T00:00")
        let history = PurchaseHistory(transactions: [production, sandbox, other])
        #expect(history.transactions.count == 3)
        #expect(history.transactions.first { $0.transactionId == "a" && $0.environment == .production }?.countedCancellation == nil)
    }

    @Test func R2_8_offers_labelTheirIntervals() {
        let base = Self.signed(signed: "2020-02-10T00:00")
        var trial = base
        trial.isTrial = true
        trial.offer = .promotional
        var winBack = base
        winBack.offer = .winBack
        #expect(Mock.evaluate([trial], at: "2020-02-20T00:00").periods[0].intervals[0].kind == .trial)
        #expect(Mock.evaluate([winBack], at: "2020-02-20T00:00").periods[0].intervals[0].kind == .offer)
        #expect(Mock.evaluate([base], at: "2020-02-20T00:00").periods[0].intervals[0].kind == .paid)
    }

    /// Copies of a few transactions, signed and unsigned, in any order and any grouping, merge to
    /// one result, and its cancellation is the one R2.8 names.
    @Test(arguments: Array(UInt64(1)...200))
    func R2_8_copiesInAnyOrderAndGrouping_mergeAlike(seed: UInt64) {
        var random = HistoryGenerator(seed: seed)
        let day = 24 * HistoryGenerator.hour
        let base = HistoryGenerator.base
        let ids = (0..<(seed % 4 == 0 ? 80 : 1 + random.below(5))).map { "t\($0)" }
        var copies: [Transaction] = []
        for id in ids {
            for _ in 0..<(1 + random.below(6)) {
                // Few distinct instants, so that signed dates and cancellations tie often.
                func instant() -> Instant { Instant(milliseconds: base + Int64(random.below(6)) * day) }
                copies.append(
                    Transaction(
                        transactionId: id, productId: random.chance(80) ? "monthly" : "premium",
                        purchase: Instant(milliseconds: base - Int64(random.below(3)) * day),
                        expires: Instant(milliseconds: base + Int64(20 + random.below(3)) * day),
                        cancellation: random.chance(40) ? instant() : nil, isUpgraded: random.chance(10), isTrial: random.chance(20),
                        offer: random.chance(20) ? OfferKind.allCases[random.below(OfferKind.allCases.count)] : nil,
                        environment: random.chance(90) ? .production : .sandbox, signedDate: random.chance(60) ? instant() : nil,
                        revocationType: HistoryGenerator.revocationTypes[random.below(HistoryGenerator.revocationTypes.count)],
                        revocationPercentage: random.chance(50) ? Int32(random.below(3) * 50_000) : nil,
                        terms: Self.terms[random.below(Self.terms.count)]))
            }
        }
        let whole = PurchaseHistory(transactions: random.shuffled(copies))
        var oneByOne = PurchaseHistory()
        for copy in random.shuffled(copies) { oneByOne.merge(transactions: [copy], renewals: []) }
        var grouped = PurchaseHistory()
        var remaining = random.shuffled(copies)
        while !remaining.isEmpty {
            let count = 1 + random.below(remaining.count)
            grouped.merge(PurchaseHistory(transactions: Array(remaining.prefix(count))))
            remaining.removeFirst(count)
        }
        #expect(oneByOne == whole)
        #expect(grouped == whole)
        for transaction in whole.transactions {
            let mine = copies.filter { $0.transactionId == transaction.transactionId && $0.environment == transaction.environment }
            #expect(transaction.countedCancellation == Self.expectedCancellation(of: mine))
            #expect(transaction.cancellationEndsTransaction == Self.expectedEnding(of: mine), "\(mine)")
            #expect(transaction.terms == Self.expectedTerms(of: mine), "\(mine)")
        }
    }

    /// Terms the generated copies carry: none, or a win-back offer's in two Unicode spellings of
    /// one identifier, or a commitment's.
    static let terms: [PurchaseTerms?] = [
        nil, nil, PurchaseTerms(offerType: 4, offerIdentifier: "caf\u{E9}", offerPeriod: "P1M"),
        PurchaseTerms(offerType: 4, offerIdentifier: "cafe\u{301}", offerPeriod: "P1M"),
        PurchaseTerms(appTransactionId: "7", billingPlanType: "MONTHLY", commitment: PurchaseCommitment(billingPeriodNumber: 2, totalBillingPeriods: 12)),
    ]

    /// R2.8 for terms stated directly: those of the latest signed copies (of all copies, without
    /// signed ones); of differing ones, the first in their order; none only when none gives any.
    static func expectedTerms(of copies: [Transaction]) -> PurchaseTerms? {
        let latest = copies.compactMap(\.signedDate).max()
        let state = latest.map { latest in copies.filter { $0.signedDate == latest } } ?? copies
        return state.compactMap(\.terms).min()
    }

    /// R5.3 with R2.8 stated directly: the cancellation counted ends the transaction when it is a
    /// cancellation of the latest signed copies (of all copies, without signed ones) whose type
    /// ends a transaction, no such copy gives that instant as a refund, and the unsigned copies'
    /// cancellation counted is not that instant.
    static func expectedEnding(of copies: [Transaction]) -> Bool {
        guard let counted = expectedCancellation(of: copies) else { return false }
        let latest = copies.compactMap(\.signedDate).max()
        let state = latest.map { latest in copies.filter { $0.signedDate == latest } } ?? copies
        // Of unsigned copies only the earliest cancellation is kept (R2.8).
        let unsigned = copies.filter { $0.signedDate == nil }.compactMap(\.cancellation).min()
        let unsignedNews = latest.map { latest in unsigned == counted && counted > latest } ?? false
        let atCounted = state.filter { $0.cancellation == counted }
        return !unsignedNews && !atCounted.isEmpty && atCounted.allSatisfy { $0.revocationType?.endsTransaction == true }
    }

    /// R2.8 stated directly: the latest signed copies' earliest cancellation, and the unsigned
    /// copies' earliest when later than their signed date; without signed copies, the earliest of all.
    static func expectedCancellation(of copies: [Transaction]) -> Instant? {
        let unsigned = copies.filter { $0.signedDate == nil }.compactMap(\.cancellation).min()
        guard let latest = copies.compactMap(\.signedDate).max() else { return unsigned }
        let signed = copies.filter { $0.signedDate == latest }.compactMap(\.cancellation).min()
        guard let unsigned, unsigned > latest else { return signed }
        return [signed, unsigned].compactMap { $0 }.min()
    }
}
