public import Masthead

/// The payload of a signed transaction (Apple's `JWSTransactionDecodedPayload`), as Apple signed it.
///
/// Every field Apple documents, each optional as in Apple's library; dates are `Instant`s,
/// money is in milliunits of ``currency``. Read it with ``init(decoding:)``; turn it into the
/// engine's `Transaction` with ``SignedDataDecoder``.
public struct JWSTransactionDecodedPayload: Hashable, Sendable {
    public var originalTransactionId: String?
    public var transactionId: String?
    /// Identifies subscription purchase events across devices, renewals included.
    public var webOrderLineItemId: String?
    public var bundleId: String?
    public var productId: String?
    public var subscriptionGroupIdentifier: String?
    public var purchaseDate: Instant?
    /// The purchase date of the original transaction.
    public var originalPurchaseDate: Instant?
    /// When an auto-renewable subscription's period ends.
    public var expiresDate: Instant?
    public var quantity: Int32?
    public var type: AppStoreProductType?
    /// The UUID the app linked to the purchase, in lower case.
    public var appAccountToken: String?
    public var inAppOwnershipType: InAppOwnershipType?
    /// When the App Store signed this state of the transaction (R2.8).
    public var signedDate: Instant?
    public var revocationReason: RevocationReason?
    /// When the App Store refunded the transaction or revoked it (from Family Sharing, or at an upgrade).
    public var revocationDate: Instant?
    /// The customer upgraded to another subscription.
    public var isUpgraded: Bool?
    public var offerType: OfferType?
    public var offerIdentifier: String?
    public var environment: AppStoreEnvironment?
    /// The three-letter code of the App Store country or region.
    public var storefront: String?
    public var storefrontId: String?
    public var transactionReason: TransactionReason?
    /// The ISO 4217 code of ``price``'s currency.
    public var currency: String?
    /// The price in milliunits of ``currency`` (9990 is 9.99).
    public var price: Int64?
    public var offerDiscountType: OfferDiscountType?
    /// Identifies the app's download transaction.
    public var appTransactionId: String?
    /// The duration of the offer, in ISO 8601 (`P1M`).
    public var offerPeriod: String?
    public var revocationType: RevocationType?
    /// The share refunded, in thousandths of a percent (50000 is 50 %).
    public var revocationPercentage: Int32?
    /// What an Advanced Commerce API purchase was for.
    public var advancedCommerceInfo: AdvancedCommerceTransactionInfo?
    public var billingPlanType: BillingPlanType?
    /// A subscription with a commitment: where in it this transaction lies.
    public var commitmentInfo: TransactionCommitmentInfo?

    /// Creates a payload with no fields; set the ones wanted.
    public init() {}
}

/// Where a transaction lies in a subscription with a commitment (Apple's `commitmentInfo`).
public struct TransactionCommitmentInfo: Hashable, Sendable {
    /// Which billing period of the commitment, from 1.
    public var billingPeriodNumber: Int32?
    public var commitmentExpiresDate: Instant?
    /// The commitment's price in milliunits.
    public var commitmentPrice: Int64?
    public var totalBillingPeriods: Int32?

    /// Creates an empty commitment.
    public init() {}
}
