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
    /// How Apple revoked it (signed data's `revocationType`), which goes with ``cancellation``:
    /// a prorated refund or a Family Sharing revocation ends the transaction there (R5.3); a full
    /// refund, an unknown value or none refunds it (R5.1). Receipts and version 1 notifications
    /// do not carry it.
    public var revocationType: RevocationType?
    /// The share of the transaction refunded or revoked, in thousandths of a percent (signed
    /// data's `revocationPercentage`, 50000 for half), which goes with ``cancellation``; it labels
    /// the refund and changes nothing else.
    public var revocationPercentage: Int32?
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
    /// The offer and billing terms the signed state gives (R2.8: Apple's offer identifier and
    /// period, app transaction id, billing plan, commitment), held behind one reference; nil when
    /// it gives none (receipts, version 1 notifications), and for transactions known only from
    /// unsigned copies. Shown, never used by the rules.
    @Boxed public var terms: PurchaseTerms?

    /// The cancellation the rules use (R2.8): ``cancellation``, or ``unsignedCancellation`` when it
    /// is later than ``signedDate`` (news the signed state could not have had), whichever is earlier.
    public var countedCancellation: Instant? {
        guard let signedDate, let unsignedCancellation, unsignedCancellation > signedDate else { return cancellation }
        return Transaction.earliest(cancellation, unsignedCancellation)
    }

    /// How the cancellation that counts (``countedCancellation``) was revoked (R5.3): the signed
    /// state's ``revocationType`` when its cancellation is the one counted; nil when an unsigned
    /// copy's cancellation is counted instead (it is earlier, or as early): receipts do not say
    /// how a transaction was revoked, so that one is a refund (R5.1).
    public var countedRevocationType: RevocationType? {
        guard let counted = countedCancellation, counted == cancellation else { return nil }
        if let signedDate, let unsignedCancellation, unsignedCancellation > signedDate, unsignedCancellation == counted { return nil }
        return revocationType
    }

    /// Whether the cancellation that counts ends the transaction there, keeping what it paid for
    /// before (R5.3: a prorated refund or a Family Sharing revocation), rather than refunding it (R5.1).
    public var cancellationEndsTransaction: Bool { countedRevocationType?.endsTransaction == true }

    /// The cancellation that counts as of `at` (R10): only one that has happened by then.
    public func cancellation(asOf at: Instant) -> Instant? {
        guard let cancellation = countedCancellation, cancellation <= at else { return nil }
        return cancellation
    }
}

/// In an extension, so that the structure keeps its memberwise initializer.
extension Transaction {
    /// Creates a transaction.
    public init(
        transactionId: String, originalTransactionId: String? = nil, productId: String, purchase: Instant,
        expires: Instant? = nil, cancellation: Instant? = nil, isUpgraded: Bool = false, isTrial: Bool = false,
        isIntroductoryOffer: Bool = false, offer: OfferKind? = nil, environment: Environment = .production,
        signedDate: Instant? = nil, unsignedCancellation: Instant? = nil, revocationType: RevocationType? = nil,
        revocationPercentage: Int32? = nil, terms: PurchaseTerms? = nil
    ) {
        // Through the memberwise initializer, which builds the value in place: assigning the fields
        // one by one here made a whole copy of it and destroyed the first.
        self.init(
            transactionId: transactionId, originalTransactionId: originalTransactionId ?? transactionId, productId: productId,
            purchase: purchase, expires: expires, cancellation: cancellation, revocationType: revocationType,
            revocationPercentage: revocationPercentage, isUpgraded: isUpgraded, isTrial: isTrial,
            isIntroductoryOffer: isIntroductoryOffer, offer: offer, environment: environment, signedDate: signedDate,
            unsignedCancellation: unsignedCancellation, terms: terms)
    }
}
