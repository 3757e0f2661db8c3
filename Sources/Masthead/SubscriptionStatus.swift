/// One user's subscription state for a publication as of an instant (R15).
public enum SubscriptionState: String, Hashable, Sendable, CaseIterable {
    /// A period (without a grace extension) covers the instant.
    case active
    /// Only a billing grace extension covers the instant (R9).
    case gracePeriod
    /// Nothing covers the instant; the latest auto-renewable transaction expired less than 60
    /// days before and the App Store is still retrying the payment.
    case billingRetry
    /// The user had intervals before; none covers the instant.
    case expired
    /// The user has no interval that has started.
    case none
}

/// A subscription state with its renewal details (R15).
public struct SubscriptionStatus: Hashable, Sendable {
    public var state: SubscriptionState
    /// Whether the subscription will renew, when the renewal info says.
    public var autoRenewOn: Bool?
    /// The product it will renew to; differs from the current product for a pending plan change.
    public var autoRenewProductId: String?
    /// The product of the latest auto-renewable transaction.
    public var currentProductId: String?
    /// Apple's expiration intent code, when given.
    public var expirationIntent: String?
    /// The publisher's span grant covering the instant (R17; the one ending last, then by id), when
    /// one does: the state is `active` because of it, while the fields above still speak of the
    /// App Store subscription (a reader in billing retry who also holds a comp).
    public var grantId: String?
    /// That grant's source (``Grant/source``).
    public var grantSource: String?
    /// The terms of the renewal info in use (signed renewal info's app account token, offer,
    /// eligible win-back offers, billing plan, commitment renewal), when it gives any; held behind
    /// one reference.
    @Boxed public var renewalTerms: RenewalTerms?

    /// Creates a status.
    public init(
        state: SubscriptionState, autoRenewOn: Bool? = nil, autoRenewProductId: String? = nil,
        currentProductId: String? = nil, expirationIntent: String? = nil, renewalTerms: RenewalTerms? = nil,
        grantId: String? = nil, grantSource: String? = nil
    ) {
        self.state = state
        self.autoRenewOn = autoRenewOn
        self.autoRenewProductId = autoRenewProductId
        self.currentProductId = currentProductId
        self.expirationIntent = expirationIntent
        self.renewalTerms = renewalTerms
        self.grantId = grantId
        self.grantSource = grantSource
    }

    /// Whether the renewal will move to another product (a downgrade or cross-grade at the next renewal).
    public var hasPendingPlanChange: Bool {
        guard let autoRenewProductId, let currentProductId else { return false }
        return !autoRenewProductId.sameBytes(as: currentProductId)
    }
}
