/// One purchase or renewal as the App Store reports it.
public struct Transaction: Hashable, Sendable {
    public var transactionId: String
    /// The first transaction of the subscription this one renews; its own id for a first purchase.
    public var originalTransactionId: String
    public var productId: String
    public var purchase: Instant
    /// The end of the paid interval (auto-renewable products, R4); nil for other products.
    public var expires: Instant?
    /// When Apple customer support refunded it (R5); nil when it was not.
    public var cancellation: Instant?
    /// Cancelled because the user upgraded within the subscription group (R5.2).
    public var isUpgraded: Bool
    /// A free trial period.
    public var isTrial: Bool
    /// An introductory offer period.
    public var isIntroductoryOffer: Bool
    public var environment: Environment

    /// Creates a transaction.
    public init(
        transactionId: String, originalTransactionId: String? = nil, productId: String, purchase: Instant,
        expires: Instant? = nil, cancellation: Instant? = nil, isUpgraded: Bool = false, isTrial: Bool = false,
        isIntroductoryOffer: Bool = false, environment: Environment = .production
    ) {
        self.transactionId = transactionId
        self.originalTransactionId = originalTransactionId ?? transactionId
        self.productId = productId
        self.purchase = purchase
        self.expires = expires
        self.cancellation = cancellation
        self.isUpgraded = isUpgraded
        self.isTrial = isTrial
        self.isIntroductoryOffer = isIntroductoryOffer
        self.environment = environment
    }

    /// Combines two copies of the same transaction (R2.3) so that the result does not depend on
    /// which copy came first: the earliest purchase and cancellation, the latest expiry, and a
    /// flag set when any copy sets it.
    public func merged(with other: Transaction) -> Transaction {
        var result = self
        result.purchase = min(purchase, other.purchase)
        result.expires = Transaction.latest(expires, other.expires)
        result.cancellation = Transaction.earliest(cancellation, other.cancellation)
        result.isUpgraded = isUpgraded || other.isUpgraded
        result.isTrial = isTrial || other.isTrial
        result.isIntroductoryOffer = isIntroductoryOffer || other.isIntroductoryOffer
        if other.originalTransactionId < result.originalTransactionId { result.originalTransactionId = other.originalTransactionId }
        if other.productId < result.productId { result.productId = other.productId }
        return result
    }

    /// The cancellation that counts as of `at` (R10): only one that has happened by then.
    public func cancellation(asOf at: Instant) -> Instant? {
        guard let cancellation, cancellation <= at else { return nil }
        return cancellation
    }

    private static func earliest(_ a: Instant?, _ b: Instant?) -> Instant? {
        guard let a else { return b }
        guard let b else { return a }
        return min(a, b)
    }

    private static func latest(_ a: Instant?, _ b: Instant?) -> Instant? {
        guard let a else { return b }
        guard let b else { return a }
        return max(a, b)
    }
}
