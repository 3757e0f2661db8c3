public import Masthead
public import MastheadStorage
import Synchronization

/// What `masthead migrate` reads and writes: subscriptions known only from receipts, and the
/// signed history Apple gives for them.
extension EntitlementService {
    /// The subscriptions none of whose stored transactions came from signed data.
    public func receiptOnlySubscriptions() throws -> [ReceiptOnlySubscription] {
        try reader.withLock { reader in try reader.store.receiptOnlySubscriptions() }
    }

    /// Everything stored for one subscription: its transactions and renewal infos.
    public func storedHistory(environment: Environment, originalTransactionId: String) throws -> PurchaseHistory {
        try reader.withLock { reader in try reader.store.history(environment: environment, originalTransactionId: originalTransactionId) }
    }

    /// Stores what Apple's App Store Server API gave for one subscription (merged under R2.8 and
    /// R2.7), in its own transaction, waiting for the commit; the subscription's link to its user
    /// is kept as it is.
    public func applyMigrated(_ history: PurchaseHistory, environment: Environment, originalTransactionId: String) throws {
        try applyPolledWrite { store in
            try store.save(transactions: history.transactions, renewals: history.renewals)
            return try store.users(linkedTo: [originalTransactionId], environment: environment).map(Change.user)
        }
    }
}
