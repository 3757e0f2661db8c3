public import Masthead

/// The payload of a subscription's signed renewal info (Apple's `JWSRenewalInfoDecodedPayload`).
///
/// Every field Apple documents, each optional as in Apple's library; dates are `Instant`s,
/// money is in milliunits of ``currency``. Read it with ``init(decoding:)``; turn it into the
/// engine's `RenewalInfo` with ``SignedDataDecoder``.
public struct JWSRenewalInfoDecodedPayload: Hashable, Sendable {
    public var expirationIntent: ExpirationIntent?
    public var originalTransactionId: String?
    /// The product the subscription renews to.
    public var autoRenewProductId: String?
    public var productId: String?
    public var autoRenewStatus: AutoRenewStatus?
    /// The App Store is still trying to bill the customer.
    public var isInBillingRetryPeriod: Bool?
    public var priceIncreaseStatus: PriceIncreaseStatus?
    /// When the billing grace period ends.
    public var gracePeriodExpiresDate: Instant?
    /// The offer the next renewal uses.
    public var offerType: OfferType?
    public var offerIdentifier: String?
    /// When the App Store signed this state of the renewal info (R2.7, R2.8).
    public var signedDate: Instant?
    public var environment: AppStoreEnvironment?
    /// The start of the latest run of the subscription without a lapse of more than 60 days.
    public var recentSubscriptionStartDate: Instant?
    /// When the subscription renews (or expired).
    public var renewalDate: Instant?
    /// The ISO 4217 code of ``renewalPrice``'s currency.
    public var currency: String?
    /// The next renewal's price in milliunits of ``currency``.
    public var renewalPrice: Int64?
    public var offerDiscountType: OfferDiscountType?
    /// Win-back offers the customer may redeem, the best first.
    public var eligibleWinBackOfferIds: [String]?
    /// The UUID the app linked to the purchase, in lower case.
    public var appAccountToken: String?
    public var appTransactionId: String?
    /// The duration of the offer, in ISO 8601 (`P1M`).
    public var offerPeriod: String?
    public var advancedCommerceInfo: AdvancedCommerceRenewalInfo?
    public var commitmentInfo: RenewalCommitmentInfo?
    public var renewalBillingPlanType: BillingPlanType?

    /// Creates a payload with no fields; set the ones wanted.
    public init() {}
}

/// What renews at the end of a commitment (Apple's `commitmentInfo` of renewal info).
public struct RenewalCommitmentInfo: Hashable, Sendable {
    public var commitmentAutoRenewProductId: String?
    public var commitmentAutoRenewStatus: AutoRenewStatus?
    public var commitmentRenewalBillingPlanType: BillingPlanType?
    public var commitmentRenewalDate: Instant?
    /// The price of the next commitment in milliunits.
    public var commitmentRenewalPrice: Int64?

    /// Creates an empty commitment.
    public init() {}
}
