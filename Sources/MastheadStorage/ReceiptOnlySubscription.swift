public import Masthead

/// A subscription known only from receipts: none of its stored transactions came from signed
/// data. `masthead migrate` asks the App Store Server API for its history.
public struct ReceiptOnlySubscription: Hashable, Sendable {
    public var environment: Environment
    public var originalTransactionId: String
    /// The user it is linked to; nil when none is.
    public var userId: String?

    /// Creates an entry.
    public init(environment: Environment, originalTransactionId: String, userId: String?) {
        self.environment = environment
        self.originalTransactionId = originalTransactionId
        self.userId = userId
    }
}
