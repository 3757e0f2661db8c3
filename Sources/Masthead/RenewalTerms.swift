/// The terms signed renewal info gives for a subscription's next renewal, as Apple signed them:
/// kept with the renewal info and shown, they decide nothing the rules compute.
///
/// Each field is optional, as in Apple's `JWSRenewalInfoDecodedPayload`; receipts' pending
/// renewal info carries none. Terms compare, hash and order by the exact bytes of their texts.
public struct RenewalTerms: Hashable, Comparable, Sendable, OfferTerms, ExactBytesRepresentable {
    /// The UUID the app linked to the purchase (`appAccountToken`), as sent.
    public var appAccountToken: String?
    /// The app download transaction of the customer (`appTransactionId`).
    public var appTransactionId: String?
    /// The offer the next renewal uses (``offerType``, ``offerIdentifier`` and ``offerPeriod``).
    public var offer: TermsOffer
    /// The win-back offers the customer may redeem, the best first (`eligibleWinBackOfferIds`).
    public var eligibleWinBackOfferIds: [String]?
    /// How the next renewal is billed (`renewalBillingPlanType`), as sent.
    public var renewalBillingPlanType: String?
    /// What renews at the end of a commitment (`commitmentInfo`).
    public var commitment: RenewalCommitment?

    /// Creates terms; every field is optional.
    public init(
        appAccountToken: String? = nil, appTransactionId: String? = nil, offerType: Int32? = nil, offerIdentifier: String? = nil,
        offerPeriod: String? = nil, eligibleWinBackOfferIds: [String]? = nil, renewalBillingPlanType: String? = nil,
        commitment: RenewalCommitment? = nil
    ) {
        self.appAccountToken = appAccountToken
        self.appTransactionId = appTransactionId
        offer = TermsOffer(type: offerType, identifier: offerIdentifier, period: offerPeriod)
        self.eligibleWinBackOfferIds = eligibleWinBackOfferIds
        self.renewalBillingPlanType = renewalBillingPlanType
        self.commitment = commitment
    }

    /// Whether no field is given (then a renewal info carries no terms at all).
    public var isEmpty: Bool {
        appAccountToken == nil && appTransactionId == nil && offer.isEmpty && eligibleWinBackOfferIds == nil && renewalBillingPlanType == nil
            && commitment == nil
    }

    /// The fields in order, so that the order of renewal infos (R2.7) depends on no arrival order.
    public var exactBytes: [UInt8] {
        TermsBytes.of(appAccountToken, appTransactionId, offer, eligibleWinBackOfferIds, renewalBillingPlanType, commitment)
    }
}

/// What renews at the end of a commitment (Apple's `commitmentInfo` of renewal info). Its texts
/// compare by their exact bytes.
public struct RenewalCommitment: Hashable, Sendable, ExactBytesRepresentable {
    /// The product the next commitment renews to (`commitmentAutoRenewProductId`).
    public var autoRenewProductId: String?
    /// Apple's `commitmentAutoRenewStatus` as sent (0 off, 1 on).
    public var autoRenewStatus: Int32?
    /// How the next commitment is billed (`commitmentRenewalBillingPlanType`), as sent.
    public var renewalBillingPlanType: String?
    /// When the commitment renews (`commitmentRenewalDate`).
    public var renewalDate: Instant?
    /// The next commitment's price in milliunits of the renewal's currency (`commitmentRenewalPrice`).
    public var renewalPrice: Int64?

    /// Creates a commitment renewal; every field is optional.
    public init(
        autoRenewProductId: String? = nil, autoRenewStatus: Int32? = nil, renewalBillingPlanType: String? = nil, renewalDate: Instant? = nil,
        renewalPrice: Int64? = nil
    ) {
        self.autoRenewProductId = autoRenewProductId
        self.autoRenewStatus = autoRenewStatus
        self.renewalBillingPlanType = renewalBillingPlanType
        self.renewalDate = renewalDate
        self.renewalPrice = renewalPrice
    }

    public var exactBytes: [UInt8] { TermsBytes.of(autoRenewProductId, autoRenewStatus, renewalBillingPlanType, renewalDate, renewalPrice) }
}

extension RenewalCommitment: TermsFieldValue {}
