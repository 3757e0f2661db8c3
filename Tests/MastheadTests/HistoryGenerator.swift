import Masthead
import MastheadSynthetic

/// A small seeded generator of purchase histories for property tests, drawing from a
/// ``SeededGenerator`` (SplitMix64).
struct HistoryGenerator {
    private var random: SeededGenerator

    init(seed: UInt64) { random = SeededGenerator(seed: seed) }

    mutating func below(_ bound: Int) -> Int { random.below(bound) }

    mutating func chance(_ percent: Int) -> Bool { random.chance(percent) }

    static let base = Mock.instant("2019-12-01T00:00").milliseconds
    /// What a cancellation may say about itself (R5.3): nothing (receipts), a full or prorated
    /// refund, a Family Sharing revocation, or a type the engine does not know.
    static let revocationTypes: [RevocationType?] = [nil, .refundFull, .refundProrated, .familyRevoke, RevocationType(rawValue: "LATER")]
    static let hour: Int64 = 3_600_000

    /// A history of one user: auto-renewable runs with overlaps and lapses, refunds and
    /// revocations of every type, upgrades, passes, free and single-issue purchases, sometimes
    /// Google Play orders (R18); `grace` adds billing-retry renewal info, dated
    /// or not, with earlier states of the same subscription.
    mutating func history(grace: Bool = true) -> (transactions: [Transaction], renewals: [RenewalInfo]) {
        var transactions: [Transaction] = []
        var renewals: [RenewalInfo] = []
        let products = ["monthly", "premium", "reader", "reader6", "reader2", "bundle"]
        for run in 0..<(1 + below(3)) {
            let product = products[below(products.count)]
            let original = "o\(run)"
            var start = Self.base + Int64(below(24 * 300)) * Self.hour
            for renewal in 0..<(1 + below(8)) {
                let end = start + Int64(24 * (3 + below(40))) * Self.hour
                let cancelled: Instant? = chance(8) ? Instant(milliseconds: start + Int64(below(24 * 60)) * Self.hour) : nil
                transactions.append(
                    Transaction(
                        transactionId: "\(original)-\(renewal)", originalTransactionId: original, productId: product,
                        purchase: Instant(milliseconds: start), expires: Instant(milliseconds: end), cancellation: cancelled,
                        isUpgraded: cancelled != nil && chance(30), environment: chance(5) ? .sandbox : .production,
                        revocationType: revocationType(cancelled), revocationPercentage: cancelled != nil && chance(50) ? Int32(below(100_001)) : nil))
                let roll = below(10)
                start = roll < 6 ? end - Int64(below(3)) * Self.hour : end + Int64(1 + below(24 * 60)) * Self.hour
            }
            if grace && chance(30) {
                // Known from a few weeks before the run's next start, or undated (R2.7).
                let evidence = chance(50) ? Instant(milliseconds: start - Int64(below(24 * 60)) * Self.hour) : nil
                renewals.append(
                    RenewalInfo(
                        originalTransactionId: original, productId: product, autoRenewOn: chance(50), isInBillingRetry: true,
                        gracePeriodExpires: Instant(milliseconds: start + Int64(below(24 * 16)) * Self.hour), evidence: evidence))
                if chance(50) {
                    // Another state of the same subscription, renewing, known at another instant.
                    renewals.append(
                        RenewalInfo(
                            originalTransactionId: original, productId: product, autoRenewOn: true,
                            evidence: Instant(milliseconds: Self.base + Int64(below(24 * 300)) * Self.hour)))
                }
            }
        }
        for index in 0..<below(3) {
            let product = ["pass1m", "pass3m", "passweek", "free", "issue-05"][below(5)]
            transactions.append(
                Transaction(
                    transactionId: "p\(index)", productId: product, purchase: Instant(milliseconds: Self.base + Int64(below(24 * 360)) * Self.hour),
                    cancellation: chance(10) ? Instant(milliseconds: Self.base + Int64(below(24 * 360)) * Self.hour) : nil))
            transactions[transactions.count - 1].revocationType = revocationType(transactions[transactions.count - 1].cancellation)
        }
        if chance(30) { transactions += playOrders() }
        return (transactions, renewals)
    }

    /// A Google Play subscription (R18): one or two tokens of orders, renewals touching or after a
    /// lapse (a hold), some refunded in full or in part; a second token linked to the first
    /// replaces it at its start (R5.2), and all are one chain.
    mutating func playOrders() -> [Transaction] {
        let products = ["monthly", "premium", "reader", "reader6"]
        var start = Self.base + Int64(below(24 * 300)) * Self.hour
        var tokens: [[GooglePlayOrder]] = []
        for token in 0..<(1 + below(2)) {
            var orders: [GooglePlayOrder] = []
            let product = products[below(products.count)]
            for renewal in 0..<(1 + below(5)) {
                let end = start + Int64(24 * (3 + below(40))) * Self.hour
                let refunded: Instant? = chance(10) ? Instant(milliseconds: start + Int64(below(24 * 60)) * Self.hour) : nil
                orders.append(
                    GooglePlayOrder(
                        purchaseToken: "token\(token)", orderId: "GPA.\(token)" + (renewal == 0 ? "" : "..\(renewal - 1)"), productId: product,
                        start: Instant(milliseconds: start), expiry: Instant(milliseconds: end), environment: chance(5) ? .sandbox : .production,
                        refunded: refunded, refundIsProrated: refunded != nil && chance(50), observed: Instant(milliseconds: end)))
                start = chance(70) ? end : end + Int64(1 + below(24 * 60)) * Self.hour
            }
            tokens.append(orders)
            // The next token takes over before, at or after the last order's expiry.
            start -= Int64(below(24 * 10)) * Self.hour
        }
        return tokens.enumerated().flatMap { index, orders in
            let replacedAt = index + 1 < tokens.count ? tokens[index + 1].first?.start : nil
            return orders.map { $0.transaction(chainId: "GPA.0", replacedAt: replacedAt) }
        }
    }

    /// Up to three of the publisher's grants (R17): archive or streaming spans (some open-ended,
    /// some with a window, some naming a second publication) and issue grants, a quarter of them
    /// revoked, before or after their start.
    mutating func grants() -> [Grant] {
        var grants: [Grant] = []
        for index in 0..<below(4) {
            grants.append(grant("g\(index)"))
            if chance(25) { grants[grants.count - 1].revokedAt = Instant(milliseconds: grants[grants.count - 1].start.milliseconds + Int64(below(24 * 200) - 24 * 30) * Self.hour) }
        }
        return grants
    }

    /// One unrevoked grant with this id.
    mutating func grant(_ id: String) -> Grant {
        let start = Instant(milliseconds: Self.base + Int64(below(24 * 400)) * Self.hour)
        if chance(25) {
            var months: [Int] = []
            for _ in 0..<(1 + below(3)) {
                let month = 1 + below(12)
                if !months.contains(month) { months.append(month) }
            }
            return Grant(grantId: id, source: "makeGood", scope: .issues(publication: "the-monthly", issueIds: months.map { String(format2020: $0) }), start: start)
        }
        let access: AccessStyle = chance(50) ? .archive : .streaming
        let window = access == .streaming && chance(40) ? 1 + below(6) : nil
        let end = chance(30) ? nil : Instant(milliseconds: start.milliseconds + Int64(24 * (1 + below(90))) * Self.hour)
        let publications = chance(20) ? ["the-monthly", "the-weekly"] : ["the-monthly"]
        return Grant(
            grantId: id, source: ["print", "comp", "gift", "licence"][below(4)], scope: .span(publications: publications, access: access, window: window),
            start: start, end: end)
    }

    /// A revocation type for a transaction cancelled at `cancellation`; nil without one.
    mutating func revocationType(_ cancellation: Instant?) -> RevocationType? {
        cancellation == nil ? nil : Self.revocationTypes[below(Self.revocationTypes.count)]
    }

    /// An as-of instant in the generated range.
    mutating func instant() -> Instant { Instant(milliseconds: Self.base + Int64(below(24 * 420)) * Self.hour) }

    mutating func shuffled<T>(_ values: [T]) -> [T] {
        var result = values
        for index in result.indices.reversed() where index > 0 { result.swapAt(index, below(index + 1)) }
        return result
    }
}
