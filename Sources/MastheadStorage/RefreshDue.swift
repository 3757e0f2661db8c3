public import Masthead

/// A subscription whose expiry is near, for the polling job (seed 003, "Bonus Step 6").
public struct RefreshDue: Hashable, Sendable {
    public var environment: Environment
    public var originalTransactionId: String
    public var userId: String?
    public var expires: Instant
    /// The latest base64 receipt known for the subscription, to re-verify with Apple.
    public var latestReceipt: String?
    /// Whether any stored transaction of the subscription came from signed data (it has a
    /// `signedDate`, R2.8): such a subscription is polled through the App Store Server API.
    public var signed: Bool

    /// Creates an entry.
    public init(environment: Environment, originalTransactionId: String, userId: String?, expires: Instant, latestReceipt: String?, signed: Bool = false) {
        self.environment = environment
        self.originalTransactionId = originalTransactionId
        self.userId = userId
        self.expires = expires
        self.latestReceipt = latestReceipt
        self.signed = signed
    }
}
