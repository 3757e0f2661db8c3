/// Everything known about what one user bought and was given: App Store transactions
/// (de-duplicated, R2.3) and pending renewal info, from any number of receipts, and the
/// publisher's grants (R17).
public struct PurchaseHistory: Hashable, Sendable {
    /// Unique per environment and transaction id, ordered by purchase instant, then id.
    public private(set) var transactions: [Transaction]
    /// Every distinct renewal info given, oldest first (R2.7: by evidence instant, never by
    /// arrival), so that an as-of question can use what was known by then.
    public private(set) var renewals: [RenewalInfo]
    /// The publisher's grants (R17), one per grant id (its exact bytes), ordered by grant id.
    public private(set) var grants: [Grant]

    /// Creates a history, merging copies of the same transaction (R2.3), keeping each distinct
    /// renewal info once, ordered by its evidence (R2.7), and one grant per grant id (the last
    /// given).
    public init(transactions: consuming [Transaction] = [], renewals: [RenewalInfo] = [], grants: [Grant] = []) {
        self.transactions = []
        self.renewals = []
        self.grants = []
        merge(transactions: consume transactions, renewals: renewals)
        if !grants.isEmpty { merge(grants: grants) }
    }

    /// Adds grants (R17); one with the id of a grant already held replaces it, as a correction
    /// does: the grants are the publisher's statement as it stands, not evidence to merge (the
    /// store keeps one version of each).
    public mutating func merge(grants newGrants: [Grant]) {
        var positions: [ExactKey: Int] = [:]
        for (index, grant) in grants.enumerated() { positions[ExactKey(grant.grantId)] = index }
        for grant in newGrants {
            if let index = positions[ExactKey(grant.grantId)] {
                grants[index] = grant
            } else {
                positions[ExactKey(grant.grantId)] = grants.count
                grants.append(grant)
            }
        }
        grants.sort { $0.grantId.precedesInBytes($1.grantId) }
    }

    /// Up to this many transactions, copies are found by comparing ids rather than by hashing.
    static let linearMergeLimit = 64

    /// Adds transactions and renewal info, as from another receipt or a notification.
    public mutating func merge(transactions newTransactions: consuming [Transaction], renewals newRenewals: [RenewalInfo]) {
        if !newTransactions.isEmpty {
            var all = transactions
            if all.isEmpty { all = consume newTransactions } else { all.append(contentsOf: newTransactions) }
            PurchaseHistory.mergeCopies(&all)
            PurchaseHistory.sortByPurchase(&all)
            transactions = all
        }
        var added = false
        for renewal in newRenewals where !renewals.contains(where: { RenewalInfo.isSame($0, as: renewal) }) {
            renewals.append(renewal)
            added = true
        }
        if added && renewals.count > 1 { renewals.sort(by: RenewalInfo.isOlder) }
    }

    /// Merges copies of one transaction (same environment and id, R2.3) into the first of them,
    /// in place: the others are moved out, not copied.
    private static func mergeCopies(_ transactions: inout [Transaction]) {
        var kept = 0
        if transactions.count <= linearMergeLimit {
            // A receipt holds a few dozen transactions: comparing ids beats hashing them. Each
            // kept id's fingerprint is compared first, its bytes only when the fingerprints agree.
            withUnsafeTemporaryAllocation(of: UInt64.self, capacity: transactions.count) { fingerprints in
                for index in transactions.indices {
                    let fingerprint = transactions[index].transactionId.bytesFingerprint
                    var first = 0
                    while first < kept
                        && !(fingerprints[first] == fingerprint
                            && transactions[first].transactionId.sameBytes(as: transactions[index].transactionId)
                            && transactions[first].environment == transactions[index].environment)
                    {
                        first += 1
                    }
                    if first < kept {
                        transactions[first] = transactions[first].merged(with: transactions[index])
                    } else {
                        transactions.swapAt(kept, index)
                        fingerprints[kept] = fingerprint
                        kept += 1
                    }
                }
            }
        } else {
            var positions: [TransactionKey: Int] = [:]
            positions.reserveCapacity(transactions.count)
            for index in transactions.indices {
                let key = TransactionKey(transactions[index])
                if let first = positions[key] {
                    transactions[first] = transactions[first].merged(with: transactions[index])
                } else {
                    positions[key] = kept
                    transactions.swapAt(kept, index)
                    kept += 1
                }
            }
        }
        transactions.removeLast(transactions.count - kept)
    }

    /// Orders by purchase instant, then transaction id, production first. Sorts small keys, then
    /// moves each transaction once into place (following the permutation's cycles with swaps),
    /// as the transactions are large to move and copying them costs reference counts.
    private static func sortByPurchase(_ transactions: inout [Transaction]) {
        transactions.withUnsafeMutableBufferPointer { transactions in
            var order: [(purchase: Instant, index: Int)] = []
            order.reserveCapacity(transactions.count)
            for index in transactions.indices { order.append((transactions[index].purchase, index)) }
            func precedes(_ a: (purchase: Instant, index: Int), _ b: (purchase: Instant, index: Int)) -> Bool {
                if a.purchase != b.purchase { return a.purchase < b.purchase }
                let first = transactions[a.index]
                let second = transactions[b.index]
                if !first.transactionId.sameBytes(as: second.transactionId) { return first.transactionId.precedesInBytes(second.transactionId) }
                return first.environment == .production && second.environment == .sandbox
            }
            // Receipts list the latest first: a run in reverse order at the start is turned
            // round, so that the sort finds it in order. (Copies merged, no two transactions are
            // equal in this order, so the sort's result does not depend on the order given.)
            var run = 1
            while run < order.count && precedes(order[run], order[run - 1]) { run += 1 }
            if run > 1 { order[..<run].reverse() }
            order.sort(by: precedes)
            // Position k receives the transaction now at source[k].
            var source = order.map { $0.index }
            for start in source.indices {
                var position = start
                while source[position] != start {
                    let next = source[position]
                    transactions.swapAt(position, next)
                    source[position] = position
                    position = next
                }
                source[position] = position
            }
        }
    }

    /// Adds another history's transactions, renewal info and grants (its grants replace those
    /// with their ids).
    public mutating func merge(_ other: PurchaseHistory) {
        merge(transactions: other.transactions, renewals: other.renewals)
        if !other.grants.isEmpty { merge(grants: other.grants) }
    }

    /// The renewal info for a subscription as of an instant (R2.6, R2.7): the newest known by
    /// `at` of the entries naming its original transaction, else of those without an original
    /// transaction id whose product is that of the subscription's latest transaction.
    public func renewal(
        forOriginalTransaction originalId: String, environment: Environment, latestProductId: String, asOf at: Instant
    ) -> RenewalInfo? {
        if let exact = renewals.last(where: {
            $0.environment == environment && $0.originalTransactionId?.sameBytes(as: originalId) == true && $0.isKnown(asOf: at)
        }) {
            return exact
        }
        return renewals.last {
            $0.environment == environment && $0.originalTransactionId == nil && $0.productId?.sameBytes(as: latestProductId) == true
                && $0.isKnown(asOf: at)
        }
    }
}

/// Identifies a transaction across copies: its environment and id, its exact bytes (R2.3, R14).
private struct TransactionKey: Hashable {
    var environment: Environment
    var transactionId: ExactKey

    init(_ transaction: Transaction) {
        environment = transaction.environment
        transactionId = ExactKey(transaction.transactionId)
    }
}
