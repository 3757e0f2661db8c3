/// A receipt's `pending_renewal_info` entry: what will happen at the next renewal (R9, R15).
public struct RenewalInfo: Hashable, Sendable {
    public var environment: Environment
    /// The subscription it describes; when nil, it applies to the subscription whose latest
    /// transaction has ``productId`` (R2.6).
    public var originalTransactionId: String?
    public var productId: String?
    /// The product the subscription will renew to (a pending plan change when it differs).
    public var autoRenewProductId: String?
    public var autoRenewOn: Bool?
    /// The App Store is still trying to bill the user.
    public var isInBillingRetry: Bool
    /// The end of the billing grace period, while one is offered.
    public var gracePeriodExpires: Instant?
    /// Why the subscription expired (Apple's code: 1 cancelled, 2 billing error, …).
    public var expirationIntent: String?

    /// Creates renewal info.
    public init(
        environment: Environment = .production, originalTransactionId: String? = nil, productId: String? = nil,
        autoRenewProductId: String? = nil, autoRenewOn: Bool? = nil, isInBillingRetry: Bool = false,
        gracePeriodExpires: Instant? = nil, expirationIntent: String? = nil
    ) {
        self.environment = environment
        self.originalTransactionId = originalTransactionId
        self.productId = productId
        self.autoRenewProductId = autoRenewProductId
        self.autoRenewOn = autoRenewOn
        self.isInBillingRetry = isInBillingRetry
        self.gracePeriodExpires = gracePeriodExpires
        self.expirationIntent = expirationIntent
    }
}
