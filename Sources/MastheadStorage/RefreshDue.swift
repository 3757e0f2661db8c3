public import Masthead

/// A subscription whose expiry is near, for the polling job (seed 003, "Bonus Step 6").
public struct RefreshDue: Hashable, Sendable {
    public var environment: Environment
    public var originalTransactionId: String
    public var userId: String?
    public var expires: Instant
    /// The latest base64 receipt known for the subscription, to re-verify with Apple.
    public var latestReceipt: String?

    /// Creates an entry.
    public init(environment: Environment, originalTransactionId: String, userId: String?, expires: Instant, latestReceipt: String?) {
        self.environment = environment
        self.originalTransactionId = originalTransactionId
        self.userId = userId
        self.expires = expires
        self.latestReceipt = latestReceipt
    }
}
