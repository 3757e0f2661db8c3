import Masthead

/// Billing trouble after a subscription's latest interval, from its renewal info: the billing
/// grace period (R9) and the App Store's billing retry, which lasts up to 60 days (R15).
struct BillingSpan {
    enum Kind {
        case grace
        case retry
    }

    var kind: Kind
    var productId: String
    /// The subscription's latest transaction, which expired.
    var transactionId: String
    /// Its expiry: when billing failed.
    var start: Instant
    /// The grace expiry, or the end of the 60 days of retry.
    var end: Instant

    /// How long the App Store retries a failed renewal (R15).
    static let retryDays: Int64 = 60

    /// The spans of the subscriptions behind `entitlement`'s intervals whose renewal info says
    /// billing retry, once their latest interval has expired by the as-of instant.
    static func spans(_ entitlement: PublicationEntitlement, history: PurchaseHistory) -> [BillingSpan] {
        let at = entitlement.at
        let subscriptionKinds: Set<IntervalKind> = [.paid, .trial, .introductoryOffer, .offer, .upgraded, .grace]
        let products = Set(entitlement.periods.flatMap(\.intervals).filter { subscriptionKinds.contains($0.kind) }.map { ExactKey($0.productId) })
        guard !products.isEmpty else { return [] }
        // As the engine counts them (R5, R10): purchased by then, not refunded.
        let counted = history.transactions.filter { transaction in
            transaction.environment == entitlement.environment && transaction.purchase <= at && transaction.expires != nil
                && products.contains(ExactKey(transaction.productId)) && (transaction.cancellation(asOf: at) == nil || transaction.isUpgraded)
        }
        var spans: [BillingSpan] = []
        for (original, transactions) in Dictionary(grouping: counted, by: { ExactKey($0.originalTransactionId) }).sorted(by: { $0.key < $1.key }) {
            let originalId = original.text
            guard
                let latest = transactions.max(by: {
                    $0.expires! != $1.expires! ? $0.expires! < $1.expires! : $0.transactionId.precedesInBytes($1.transactionId)
                }),
                let expires = latest.expires, expires <= at, latest.cancellation(asOf: at) == nil, let latestPurchased = transactions.last,
                let renewal = history.renewal(forOriginalTransaction: originalId, environment: entitlement.environment, latestProductId: latestPurchased.productId, asOf: at),
                renewal.isInBillingRetry
            else { continue }
            if let grace = renewal.gracePeriodExpires, grace > expires {
                spans.append(BillingSpan(kind: .grace, productId: latest.productId, transactionId: latest.transactionId, start: expires, end: grace))
            }
            let retryEnd = expires.adding(milliseconds: retryDays * Instant.millisecondsPerDay)
            spans.append(BillingSpan(kind: .retry, productId: latest.productId, transactionId: latest.transactionId, start: expires, end: retryEnd))
        }
        return spans
    }
}
