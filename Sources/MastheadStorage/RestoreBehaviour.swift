/// What happens when a receipt names a subscription already linked to another user.
public enum RestoreBehaviour: String, Sendable, CaseIterable {
    /// Move the subscription to the user who posted the receipt (Apple's guidance for restores).
    case transfer
    /// Refuse: the receipt is rejected as already in use.
    case keep
    /// Move it only when no transaction of it covers the present instant.
    case transferIfInactive

    /// Whether a subscription linked to another user moves to the one who posted the receipt;
    /// `isActive` (whether a transaction of it covers the present instant, unrefunded) is asked
    /// only by ``transferIfInactive``. When this answers false, the store refuses the whole
    /// receipt with ``StorageError/receiptAlreadyInUse(environment:originalTransactionId:userId:)``.
    package func moves<E: Error>(isActive: () throws(E) -> Bool) throws(E) -> Bool {
        switch self {
        case .transfer: true
        case .keep: false
        case .transferIfInactive: try !isActive()
        }
    }
}
