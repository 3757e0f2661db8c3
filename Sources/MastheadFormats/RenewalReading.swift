import Masthead

/// What one part of a receipt or notification body says about a subscription's renewal: a
/// `pending_renewal_info` entry, or the top-level renewal fields of an iOS 6-style receipt or a
/// version 1 notification. The parts one body gives for one subscription are merged, then dated
/// (R2.7).
struct RenewalReading {
    /// Where the fields were read; at equal evidence, `pending_renewal_info` is preferred.
    enum Source: Int, Comparable {
        case pendingRenewalInfo, topLevel

        static func < (a: Source, b: Source) -> Bool { a.rawValue < b.rawValue }
    }

    var source: Source
    var originalTransactionId: String?
    var productId: String?
    var autoRenewProductId: String?
    var autoRenewOn: Bool?
    var isInBillingRetry: Bool?
    var gracePeriodExpires: Instant?
    var expirationIntent: String?
    /// `auto_renew_status_change_date`: when the renewal state last changed.
    var changed: Instant?

    /// Whether two readings describe the same subscription: the same original transaction id,
    /// or, when one of them has none, the same product (R2.6); ids the same bytes.
    func isSameSubscription(as other: RenewalReading) -> Bool {
        if let originalTransactionId, let otherOriginal = other.originalTransactionId { return originalTransactionId.sameBytes(as: otherOriginal) }
        guard let productId, let otherProduct = other.productId else { return false }
        return productId.sameBytes(as: otherProduct)
    }

    /// The renewal infos of one body (R2.7). Top-level fields name the subscription of the body's
    /// latest transaction when they do not name one (and are dropped when there is none). Each
    /// reading is dated by its change date, else by the purchase of its subscription's latest
    /// transaction in the body. The readings of one subscription merge field by field: each
    /// field from the reading with the newest evidence that gives it; at equal evidence (or none),
    /// `pending_renewal_info` before the top-level fields, then in document order.
    /// - Parameter transactions: the body's transactions, copies included, in any order.
    static func renewals(_ readings: [RenewalReading], transactions: [Transaction], environment: Environment) -> [RenewalInfo] {
        guard !readings.isEmpty else { return [] }
        var dated: [(reading: RenewalReading, evidence: Instant?)] = []
        dated.reserveCapacity(readings.count)
        for var reading in readings {
            if reading.source == .topLevel {
                guard let original = reading.originalTransactionId ?? latest(transactions, among: .all)?.originalTransactionId
                else { continue }
                reading.originalTransactionId = original
                reading.productId = reading.productId ?? latest(transactions, among: .subscription(original))?.productId
            }
            dated.append((reading, reading.changed ?? reading.latestPurchase(in: transactions)))
        }
        var renewals: [RenewalInfo] = []
        for index in dated.indices {
            let reading = dated[index].reading
            // A subscription's readings are merged at its first one.
            if dated[..<index].contains(where: { $0.reading.isSameSubscription(as: reading) }) { continue }
            let others = dated[(index + 1)...].filter { $0.reading.isSameSubscription(as: reading) }
            renewals.append(
                others.isEmpty ? reading.info(environment, evidence: dated[index].evidence) : merged([dated[index]] + others, environment))
        }
        return renewals
    }

    /// The purchase of the latest transaction of this reading's subscription among `transactions`.
    private func latestPurchase(in transactions: [Transaction]) -> Instant? {
        if let originalTransactionId {
            return RenewalReading.latest(transactions, among: .subscription(originalTransactionId))?.purchase
        }
        guard let productId else { return nil }
        return RenewalReading.latest(transactions, among: .product(productId))?.purchase
    }

    /// Which transactions ``latest(_:among:)`` chooses from: all, those of one subscription (by
    /// original transaction id), or those of one product; ids the same bytes.
    private enum Among {
        case all
        case subscription(String)
        case product(String)
    }

    /// The latest of the transactions `among` names, by purchase, then id. Reads their fields in
    /// place, copying only the one returned.
    private static func latest(_ transactions: [Transaction], among: Among) -> Transaction? {
        var latest: Int?
        for index in transactions.indices {
            switch among {
            case .all: break
            case .subscription(let id): guard transactions[index].originalTransactionId.sameBytes(as: id) else { continue }
            case .product(let id): guard transactions[index].productId.sameBytes(as: id) else { continue }
            }
            if let current = latest, transactions[current].purchase > transactions[index].purchase
                || (transactions[current].purchase == transactions[index].purchase
                    && !transactions[current].transactionId.precedesInBytes(transactions[index].transactionId))
            { continue }
            latest = index
        }
        return latest.map { transactions[$0] }
    }

    /// The renewal info this reading alone gives.
    private func info(_ environment: Environment, evidence: Instant?) -> RenewalInfo {
        RenewalInfo(
            environment: environment, originalTransactionId: originalTransactionId, productId: productId,
            autoRenewProductId: autoRenewProductId, autoRenewOn: autoRenewOn, isInBillingRetry: isInBillingRetry ?? false,
            gracePeriodExpires: gracePeriodExpires, expirationIntent: expirationIntent, evidence: evidence)
    }

    /// One subscription's readings (in document order) merged field by field: applied from the
    /// least to the most preferred, so that each field ends with the most preferred value given.
    private static func merged(_ group: [(reading: RenewalReading, evidence: Instant?)], _ environment: Environment) -> RenewalInfo {
        let preferred = group.indices.sorted { a, b in
            let first = group[a]
            let second = group[b]
            if first.evidence != second.evidence {
                guard let left = first.evidence else { return false }
                guard let right = second.evidence else { return true }
                return left > right
            }
            if first.reading.source != second.reading.source { return first.reading.source < second.reading.source }
            return a < b
        }
        var merged = RenewalReading(source: .pendingRenewalInfo)
        for index in preferred.reversed() {
            let reading = group[index].reading
            merged.originalTransactionId = reading.originalTransactionId ?? merged.originalTransactionId
            merged.productId = reading.productId ?? merged.productId
            merged.autoRenewProductId = reading.autoRenewProductId ?? merged.autoRenewProductId
            merged.autoRenewOn = reading.autoRenewOn ?? merged.autoRenewOn
            merged.isInBillingRetry = reading.isInBillingRetry ?? merged.isInBillingRetry
            merged.gracePeriodExpires = reading.gracePeriodExpires ?? merged.gracePeriodExpires
            merged.expirationIntent = reading.expirationIntent ?? merged.expirationIntent
        }
        return merged.info(environment, evidence: group.compactMap(\.evidence).max())
    }
}
