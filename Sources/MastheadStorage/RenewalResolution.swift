package import Masthead

/// Which subscription a renewal info without an original transaction id belongs to (R2.6), the
/// same for every store.
package enum RenewalResolution {
    /// Names renewal infos without an original transaction id by the subscription whose latest
    /// transaction has their product (R2.6); ones that match nothing are left out.
    package static func resolve(_ renewals: [RenewalInfo], transactions: [Transaction]) -> [RenewalInfo] {
        // The latest transaction of each subscription, computed once for all renewal infos.
        var latest: [SubscriptionKey: Transaction] = [:]
        for transaction in transactions {
            let key = SubscriptionKey(environment: transaction.environment, originalTransactionId: transaction.originalTransactionId)
            if let current = latest[key], !RenewalResolution.isLater(transaction, than: current) { continue }
            latest[key] = transaction
        }
        return renewals.compactMap { info in
            if info.originalTransactionId != nil { return info }
            guard let productId = info.productId,
                let match = latest.values.filter({ $0.environment == info.environment && $0.productId.sameBytes(as: productId) })
                    .max(by: { RenewalResolution.isLater($1, than: $0) })
            else { return nil }
            var resolved = info
            resolved.originalTransactionId = match.originalTransactionId
            return resolved
        }
    }

    /// Whether `a` comes after `b`: by purchase, then by the bytes of the transaction id.
    private static func isLater(_ a: Transaction, than b: Transaction) -> Bool {
        a.purchase != b.purchase ? a.purchase > b.purchase : b.transactionId.precedesInBytes(a.transactionId)
    }
}
