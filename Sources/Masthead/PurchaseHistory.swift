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

    /// Up to this many transactions, copies are found by comparing ids rather than by hashing.
    static let linearMergeLimit = 64

    /// Adds transactions and renewal info, as from another receipt or a notification.
    public mutating func merge(transactions newTransactions: [Transaction], renewals newRenewals: [RenewalInfo]) {
        var unique = transactions
        unique.reserveCapacity(transactions.count + newTransactions.count)
        if unique.count + newTransactions.count <= Self.linearMergeLimit {
            // A receipt holds a few dozen transactions: comparing ids beats hashing them.
            for transaction in newTransactions {
                if let index = unique.firstIndex(where: { $0.transactionId == transaction.transactionId && $0.environment == transaction.environment }) {
                    unique[index] = unique[index].merged(with: transaction)
                } else {
                    unique.append(transaction)
                }
            }
        } else {
            var positions: [TransactionKey: Int] = [:]
            positions.reserveCapacity(unique.count + newTransactions.count)
            for (index, transaction) in unique.enumerated() { positions[TransactionKey(transaction)] = index }
            for transaction in newTransactions {
                let key = TransactionKey(transaction)
                if let index = positions[key] {
                    unique[index] = unique[index].merged(with: transaction)
                } else {
                    positions[key] = unique.count
                    unique.append(transaction)
                }
            }
        }
        transactions = PurchaseHistory.sortedByPurchase(unique)
        for renewal in newRenewals {
            renewals.removeAll { $0.environment == renewal.environment && $0.originalTransactionId == renewal.originalTransactionId
                && ($0.originalTransactionId != nil || $0.productId == renewal.productId) }
            renewals.append(renewal)
        }
    }

    /// Orders by purchase instant, then transaction id, production first. Sorts small keys
    /// rather than the transactions themselves, which are large to move.
    private static func sortedByPurchase(_ transactions: [Transaction]) -> [Transaction] {
        var order = transactions.indices.map { (purchase: transactions[$0].purchase, index: $0) }
        order.sort { a, b in
            if a.purchase != b.purchase { return a.purchase < b.purchase }
            let first = transactions[a.index]
            let second = transactions[b.index]
            if first.transactionId != second.transactionId { return first.transactionId < second.transactionId }
            return first.environment == .production && second.environment == .sandbox
        }
        if order.indices.allSatisfy({ order[$0].index == $0 }) { return transactions }
        return order.map { transactions[$0.index] }
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

/// Identifies a transaction across copies: its environment and id (R2.3, R14).
private struct TransactionKey: Hashable {
    var environment: Environment
    var transactionId: String

    init(_ transaction: Transaction) {
        environment = transaction.environment
        transactionId = transaction.transactionId
    }
}
