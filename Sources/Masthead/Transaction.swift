/// One purchase or renewal as the App Store reports it.
public struct Transaction: Hashable, Sendable {
    public var transactionId: String
    /// The first transaction of the subscription this one renews; its own id for a first purchase.
    public var originalTransactionId: String
    public var productId: String
    public var purchase: Instant
    /// The end of the paid interval (auto-renewable products, R4); nil for other products.
    public var expires: Instant?
    /// When Apple refunded or revoked it (R5): what the latest signed copy says (R2.8), or, for a
    /// transaction known only from unsigned copies, the earliest they give (R2.3); nil when none
    /// does. The engine uses ``countedCancellation``.
    public var cancellation: Instant?
    /// Cancelled because the user upgraded within the subscription group (R5.2).
    public var isUpgraded: Bool
    /// A free trial period.
    public var isTrial: Bool
    /// An introductory offer period.
    public var isIntroductoryOffer: Bool
    /// Another offer the transaction was bought under (signed transactions only); nil without one.
    public var offer: OfferKind?
    public var environment: Environment
    /// When Apple signed the state this transaction carries (R2.8): the latest `signedDate` of
    /// its signed copies; nil when every copy is unsigned (verifyReceipt, version 1 notifications).
    public var signedDate: Instant?
    /// The earliest cancellation an unsigned copy gave, for a transaction that also has a signed
    /// copy (R2.8); it counts only when later than ``signedDate``. Nil when no unsigned copy gave
    /// one, and for transactions without signed copies (their ``cancellation`` holds it).
    public var unsignedCancellation: Instant?

    /// Creates a transaction.
    public init(
        transactionId: String, originalTransactionId: String? = nil, productId: String, purchase: Instant,
        expires: Instant? = nil, cancellation: Instant? = nil, isUpgraded: Bool = false, isTrial: Bool = false,
        isIntroductoryOffer: Bool = false, offer: OfferKind? = nil, environment: Environment = .production,
        signedDate: Instant? = nil, unsignedCancellation: Instant? = nil
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
        self.offer = offer
        self.environment = environment
        self.signedDate = signedDate
        self.unsignedCancellation = unsignedCancellation
    }

    /// The cancellation the rules use (R2.8): ``cancellation``, or ``unsignedCancellation`` when it
    /// is later than ``signedDate`` (news the signed state could not have had), whichever is earlier.
    public var countedCancellation: Instant? {
        guard let signedDate, let unsignedCancellation, unsignedCancellation > signedDate else { return cancellation }
        return Transaction.earliest(cancellation, unsignedCancellation)
    }

    /// The cancellation that counts as of `at` (R10): only one that has happened by then.
    public func cancellation(asOf at: Instant) -> Instant? {
        guard let cancellation = countedCancellation, cancellation <= at else { return nil }
        return cancellation
    }
}
