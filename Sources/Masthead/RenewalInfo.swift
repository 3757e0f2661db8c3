/// What will happen at a subscription's next renewal (R9, R15): a receipt's
/// `pending_renewal_info` entry, or signed renewal info.
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
    /// The newest instant the info is known to describe (R2.7): signed info's `signedDate`; else
    /// its change date (`auto_renew_status_change_date`), else the purchase of its subscription's
    /// latest transaction in the same receipt or notification; nil when it carries neither. It orders
    /// renewal infos and says from when an as-of question may use it.
    public var evidence: Instant?
    /// The terms signed renewal info gives (app account token, app transaction id, the offer of
    /// the next renewal, eligible win-back offers, billing plan, commitment renewal), held behind
    /// one reference; nil when it gives none, and for receipts' pending renewal info. Shown, never
    /// used by the rules.
    @Boxed public var terms: RenewalTerms?

    /// Creates renewal info.
    public init(
        environment: Environment = .production, originalTransactionId: String? = nil, productId: String? = nil,
        autoRenewProductId: String? = nil, autoRenewOn: Bool? = nil, isInBillingRetry: Bool = false,
        gracePeriodExpires: Instant? = nil, expirationIntent: String? = nil, evidence: Instant? = nil, terms: RenewalTerms? = nil
    ) {
        self.environment = environment
        self.originalTransactionId = originalTransactionId
        self.productId = productId
        self.autoRenewProductId = autoRenewProductId
        self.autoRenewOn = autoRenewOn
        self.isInBillingRetry = isInBillingRetry
        self.gracePeriodExpires = gracePeriodExpires
        self.expirationIntent = expirationIntent
        self.evidence = evidence
        self.terms = terms
    }

    /// Whether the info may answer an as-of question about `at` (R2.7, R10): it was known by
    /// then. Info without evidence counts as known at any instant.
    public func isKnown(asOf at: Instant) -> Bool {
        guard let evidence else { return true }
        return evidence <= at
    }
}
