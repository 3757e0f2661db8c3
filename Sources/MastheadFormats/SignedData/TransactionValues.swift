// The value sets of Apple's signed transaction fields (those a renewal info shares, such as the
// environment and the offer type, too), each kept as sent so that a value Apple adds later is
// not refused.

/// The server environment of signed data (Apple's `environment`).
///
/// A value Apple adds later is kept as sent, not refused.
public struct AppStoreEnvironment: RawRepresentable, Hashable, Sendable {
    public var rawValue: String

    /// Wraps a raw `environment` value, known or not.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Apple's sandbox: test purchases.
    public static let sandbox = AppStoreEnvironment(rawValue: "Sandbox")
    /// The App Store: real purchases.
    public static let production = AppStoreEnvironment(rawValue: "Production")
    /// StoreKit testing in Xcode, signed by Xcode's own certificate.
    public static let xcode = AppStoreEnvironment(rawValue: "Xcode")
    /// Apple's local unit tests of its server library.
    public static let localTesting = AppStoreEnvironment(rawValue: "LocalTesting")
}

/// The kind of in-app purchase a signed transaction is for (Apple's `type`).
///
/// A value Apple adds later is kept as sent, not refused.
public struct AppStoreProductType: RawRepresentable, Hashable, Sendable {
    public var rawValue: String

    /// Wraps a raw `type` value, known or not.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// An auto-renewable subscription.
    public static let autoRenewableSubscription = AppStoreProductType(rawValue: "Auto-Renewable Subscription")
    /// A subscription that does not renew.
    public static let nonRenewingSubscription = AppStoreProductType(rawValue: "Non-Renewing Subscription")
    /// A purchase made once and kept.
    public static let nonConsumable = AppStoreProductType(rawValue: "Non-Consumable")
    /// A purchase used up and bought again.
    public static let consumable = AppStoreProductType(rawValue: "Consumable")
}

/// How the customer holds a purchase (Apple's `inAppOwnershipType`).
///
/// A value Apple adds later is kept as sent, not refused.
public struct InAppOwnershipType: RawRepresentable, Hashable, Sendable {
    public var rawValue: String

    /// Wraps a raw `inAppOwnershipType` value, known or not.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The customer bought it.
    public static let purchased = InAppOwnershipType(rawValue: "PURCHASED")
    /// A family member bought it and shares it through Family Sharing.
    public static let familyShared = InAppOwnershipType(rawValue: "FAMILY_SHARED")
}

/// The kind of offer a transaction or renewal uses (Apple's `offerType`).
///
/// A value Apple adds later is kept as sent, not refused.
public struct OfferType: RawRepresentable, Hashable, Sendable {
    public var rawValue: Int32

    /// Wraps a raw `offerType` value, known or not.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// An introductory offer.
    public static let introductoryOffer = OfferType(rawValue: 1)
    /// A promotional offer.
    public static let promotionalOffer = OfferType(rawValue: 2)
    /// An offer code.
    public static let offerCode = OfferType(rawValue: 3)
    /// A win-back offer.
    public static let winBackOffer = OfferType(rawValue: 4)
}

/// How an offer discounts the price (Apple's `offerDiscountType`).
///
/// A value Apple adds later is kept as sent, not refused.
public struct OfferDiscountType: RawRepresentable, Hashable, Sendable {
    public var rawValue: String

    /// Wraps a raw `offerDiscountType` value, known or not.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A free trial.
    public static let freeTrial = OfferDiscountType(rawValue: "FREE_TRIAL")
    /// A reduced price for each billing period.
    public static let payAsYouGo = OfferDiscountType(rawValue: "PAY_AS_YOU_GO")
    /// A reduced price paid once for the offer's duration.
    public static let payUpFront = OfferDiscountType(rawValue: "PAY_UP_FRONT")
    /// A one-time charge.
    public static let oneTime = OfferDiscountType(rawValue: "ONE_TIME")
}

/// Why a transaction happened (Apple's `transactionReason`).
///
/// A value Apple adds later is kept as sent, not refused.
public struct TransactionReason: RawRepresentable, Hashable, Sendable {
    public var rawValue: String

    /// Wraps a raw `transactionReason` value, known or not.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The customer bought it.
    public static let purchase = TransactionReason(rawValue: "PURCHASE")
    /// An auto-renewable subscription renewed.
    public static let renewal = TransactionReason(rawValue: "RENEWAL")
}

/// Why the App Store refunded or revoked a transaction (Apple's `revocationReason`).
///
/// A value Apple adds later is kept as sent, not refused.
public struct RevocationReason: RawRepresentable, Hashable, Sendable {
    public var rawValue: Int32

    /// Wraps a raw `revocationReason` value, known or not.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// Refunded for another reason, such as an accidental purchase.
    public static let refundedForOtherReason = RevocationReason(rawValue: 0)
    /// Refunded because of an actual or perceived issue in the app.
    public static let refundedDueToIssue = RevocationReason(rawValue: 1)
}

/// How a subscription with a commitment is billed (Apple's `billingPlanType` and `renewalBillingPlanType`).
///
/// A value Apple adds later is kept as sent, not refused.
public struct BillingPlanType: RawRepresentable, Hashable, Sendable {
    public var rawValue: String

    /// Wraps a raw `billingPlanType` value, known or not.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Billed once for the whole commitment.
    public static let billedUpfront = BillingPlanType(rawValue: "BILLED_UPFRONT")
    /// Billed every month of the commitment.
    public static let monthly = BillingPlanType(rawValue: "MONTHLY")
}
