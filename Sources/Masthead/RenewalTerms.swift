/// The terms signed renewal info gives for a subscription's next renewal, as Apple signed them:
/// kept with the renewal info and shown, they decide nothing the rules compute.
///
/// Each field is optional, as in Apple's `JWSRenewalInfoDecodedPayload`; receipts' pending
/// renewal info carries none. Terms compare, hash and order by the exact bytes of their texts.
public struct RenewalTerms: Hashable, Comparable, Sendable {
    /// The UUID the app linked to the purchase (`appAccountToken`), as sent.
    public var appAccountToken: String?
    /// The app download transaction of the customer (`appTransactionId`).
    public var appTransactionId: String?
    /// Apple's `offerType` of the offer the next renewal uses, as sent (1 introductory, 2
    /// promotional, 3 offer code, 4 win-back).
    public var offerType: Int32?
    /// That offer's identifier (`offerIdentifier`).
    public var offerIdentifier: String?
    /// How long that offer lasts (`offerPeriod`), ISO 8601 text as sent (`P1M`).
    public var offerPeriod: String?
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
        self.offerType = offerType
        self.offerIdentifier = offerIdentifier
        self.offerPeriod = offerPeriod
        self.eligibleWinBackOfferIds = eligibleWinBackOfferIds
        self.renewalBillingPlanType = renewalBillingPlanType
        self.commitment = commitment
    }

    /// Whether no field is given (then a renewal info carries no terms at all).
    public var isEmpty: Bool {
        appAccountToken == nil && appTransactionId == nil && offerType == nil && offerIdentifier == nil && offerPeriod == nil
            && eligibleWinBackOfferIds == nil && renewalBillingPlanType == nil && commitment == nil
    }

    public static func == (lhs: RenewalTerms, rhs: RenewalTerms) -> Bool { lhs.exactBytes == rhs.exactBytes }

    public func hash(into hasher: inout Hasher) { hasher.combine(exactBytes) }

    /// Orders terms field by field by their exact bytes (absent fields first): a total order, so
    /// that the order of renewal infos (R2.7) depends on no arrival order.
    public static func < (lhs: RenewalTerms, rhs: RenewalTerms) -> Bool { lhs.exactBytes.lexicographicallyPrecedes(rhs.exactBytes) }

    private var exactBytes: [UInt8] {
        var bytes = TermsBytes()
        bytes.add(appAccountToken)
        bytes.add(appTransactionId)
        bytes.add(offerType)
        bytes.add(offerIdentifier)
        bytes.add(offerPeriod)
        bytes.add(eligibleWinBackOfferIds)
        bytes.add(renewalBillingPlanType)
        bytes.add(commitment == nil ? nil : "")
        bytes.add(commitment?.autoRenewProductId)
        bytes.add(commitment?.autoRenewStatus)
        bytes.add(commitment?.renewalBillingPlanType)
        bytes.add(commitment?.renewalDate)
        bytes.add(commitment?.renewalPrice)
        return bytes.bytes
    }
}

/// What renews at the end of a commitment (Apple's `commitmentInfo` of renewal info). Its texts
/// compare by their exact bytes.
public struct RenewalCommitment: Hashable, Sendable {
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

    public static func == (lhs: RenewalCommitment, rhs: RenewalCommitment) -> Bool {
        lhs.autoRenewProductId.map(ExactKey.init) == rhs.autoRenewProductId.map(ExactKey.init) && lhs.autoRenewStatus == rhs.autoRenewStatus
            && lhs.renewalBillingPlanType.map(ExactKey.init) == rhs.renewalBillingPlanType.map(ExactKey.init)
            && lhs.renewalDate == rhs.renewalDate && lhs.renewalPrice == rhs.renewalPrice
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(autoRenewProductId.map(ExactKey.init))
        hasher.combine(autoRenewStatus)
        hasher.combine(renewalBillingPlanType.map(ExactKey.init))
        hasher.combine(renewalDate)
        hasher.combine(renewalPrice)
    }
}
