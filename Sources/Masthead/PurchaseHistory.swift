/// Everything known about one user's App Store purchases: transactions (de-duplicated, R2.3)
/// and pending renewal info, from any number of receipts.
public struct PurchaseHistory: Hashable, Sendable {
    /// Unique per environment and transaction id, ordered by purchase instant, then id.
    public private(set) var transactions: [Transaction]
    /// The latest renewal info given per environment and subscription.
    public private(set) var renewals: [RenewalInfo]

    /// Creates a history, merging copies of the same transaction (R2.3). Of several renewal infos
    /// for one subscription, the last one given wins: later receipts describe later states.
    public init(transactions: [Transaction] = [], renewals: [RenewalInfo] = []) {
        self.transactions = []
        self.renewals = []
        merge(transactions: transactions, renewals: renewals)
    }

    /// Adds transactions and renewal info, as from another receipt or a notification.
    public mutating func merge(transactions newTransactions: [Transaction], renewals newRenewals: [RenewalInfo]) {
        var all = transactions + newTransactions
        all.sort { ($0.environment.rawValue, $0.transactionId) < ($1.environment.rawValue, $1.transactionId) }
        var unique: [Transaction] = []
        unique.reserveCapacity(all.count)
        for transaction in all {
            if let last = unique.last, last.environment == transaction.environment, last.transactionId == transaction.transactionId {
                unique[unique.count - 1] = last.merged(with: transaction)
            } else {
                unique.append(transaction)
            }
        }
        unique.sort { ($0.purchase, $0.transactionId, $0.environment.rawValue) < ($1.purchase, $1.transactionId, $1.environment.rawValue) }
        transactions = unique
        for renewal in newRenewals {
            renewals.removeAll { $0.environment == renewal.environment && $0.originalTransactionId == renewal.originalTransactionId
                && ($0.originalTransactionId != nil || $0.productId == renewal.productId) }
            renewals.append(renewal)
        }
    }

    /// Adds another history's transactions and renewal info.
    public mutating func merge(_ other: PurchaseHistory) {
        merge(transactions: other.transactions, renewals: other.renewals)
    }

    /// The renewal info for a subscription (R2.6): the entry naming its original transaction, else
    /// one without an original transaction id whose product is that of the subscription's latest
    /// transaction.
    public func renewal(forOriginalTransaction originalId: String, environment: Environment, latestProductId: String) -> RenewalInfo? {
        if let exact = renewals.last(where: { $0.environment == environment && $0.originalTransactionId == originalId }) {
            return exact
        }
        return renewals.last { $0.environment == environment && $0.originalTransactionId == nil && $0.productId == latestProductId }
    }
}
