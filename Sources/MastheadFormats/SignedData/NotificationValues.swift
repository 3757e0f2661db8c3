// The value sets of Apple's version 2 notification fields, each kept as sent so that a value Apple
// adds later is not refused.

/// What a version 2 notification reports (Apple's `notificationType`).
///
/// A value Apple adds later is kept as sent, not refused.
public struct NotificationTypeV2: RawRepresentable, Hashable, Sendable {
    public var rawValue: String

    /// Wraps a raw `notificationType` value, known or not.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The customer subscribed (subtype `INITIAL_BUY` or `RESUBSCRIBE`).
    public static let subscribed = NotificationTypeV2(rawValue: "SUBSCRIBED")
    /// The customer changed the plan (subtype `UPGRADE` or `DOWNGRADE`; none when back to the current one).
    public static let didChangeRenewalPref = NotificationTypeV2(rawValue: "DID_CHANGE_RENEWAL_PREF")
    /// The customer turned automatic renewal on or off.
    public static let didChangeRenewalStatus = NotificationTypeV2(rawValue: "DID_CHANGE_RENEWAL_STATUS")
    /// The customer redeemed a promotional offer or offer code.
    public static let offerRedeemed = NotificationTypeV2(rawValue: "OFFER_REDEEMED")
    /// The subscription renewed (subtype `BILLING_RECOVERY` after a failed renewal).
    public static let didRenew = NotificationTypeV2(rawValue: "DID_RENEW")
    /// The subscription expired.
    public static let expired = NotificationTypeV2(rawValue: "EXPIRED")
    /// A renewal failed; subtype `GRACE_PERIOD` while a billing grace period runs.
    public static let didFailToRenew = NotificationTypeV2(rawValue: "DID_FAIL_TO_RENEW")
    /// The billing grace period ended without a renewal.
    public static let gracePeriodExpired = NotificationTypeV2(rawValue: "GRACE_PERIOD_EXPIRED")
    /// The system told the customer of a price increase.
    public static let priceIncrease = NotificationTypeV2(rawValue: "PRICE_INCREASE")
    /// The App Store refunded a transaction.
    public static let refund = NotificationTypeV2(rawValue: "REFUND")
    /// The App Store declined a refund request.
    public static let refundDeclined = NotificationTypeV2(rawValue: "REFUND_DECLINED")
    /// The customer asked for a refund; Apple asks for consumption data.
    public static let consumptionRequest = NotificationTypeV2(rawValue: "CONSUMPTION_REQUEST")
    /// The App Store extended the renewal date of one subscription.
    public static let renewalExtended = NotificationTypeV2(rawValue: "RENEWAL_EXTENDED")
    /// A family-shared purchase is no longer available to the customer.
    public static let revoke = NotificationTypeV2(rawValue: "REVOKE")
    /// A test notification requested through the App Store Server API.
    public static let test = NotificationTypeV2(rawValue: "TEST")
    /// The App Store is extending the renewal date of many subscriptions.
    public static let renewalExtension = NotificationTypeV2(rawValue: "RENEWAL_EXTENSION")
    /// The App Store reversed a refund it had granted.
    public static let refundReversed = NotificationTypeV2(rawValue: "REFUND_REVERSED")
    /// An external purchase token was not reported.
    public static let externalPurchaseToken = NotificationTypeV2(rawValue: "EXTERNAL_PURCHASE_TOKEN")
    /// A one-time charge through the Advanced Commerce API.
    public static let oneTimeCharge = NotificationTypeV2(rawValue: "ONE_TIME_CHARGE")
    /// A parent or guardian withdrew consent for a child's app.
    public static let rescindConsent = NotificationTypeV2(rawValue: "RESCIND_CONSENT")
    /// An Advanced Commerce subscription's metadata changed.
    public static let metadataUpdate = NotificationTypeV2(rawValue: "METADATA_UPDATE")
    /// An Advanced Commerce subscription was migrated.
    public static let migration = NotificationTypeV2(rawValue: "MIGRATION")
    /// An Advanced Commerce subscription's price changed.
    public static let priceChange = NotificationTypeV2(rawValue: "PRICE_CHANGE")

    /// Every type above: the ones Apple documents.
    public static let documented: [NotificationTypeV2] = [
        .subscribed, .didChangeRenewalPref, .didChangeRenewalStatus, .offerRedeemed, .didRenew, .expired, .didFailToRenew,
        .gracePeriodExpired, .priceIncrease, .refund, .refundDeclined, .consumptionRequest, .renewalExtended, .revoke, .test,
        .renewalExtension, .refundReversed, .externalPurchaseToken, .oneTimeCharge, .rescindConsent, .metadataUpdate, .migration,
        .priceChange,
    ]
}

/// What detail a version 2 notification adds to its type (Apple's `subtype`).
///
/// A value Apple adds later is kept as sent, not refused.
public struct NotificationSubtype: RawRepresentable, Hashable, Sendable {
    public var rawValue: String

    /// Wraps a raw `subtype` value, known or not.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// `INITIAL_BUY`.
    public static let initialBuy = NotificationSubtype(rawValue: "INITIAL_BUY")
    /// `RESUBSCRIBE`.
    public static let resubscribe = NotificationSubtype(rawValue: "RESUBSCRIBE")
    /// `DOWNGRADE`.
    public static let downgrade = NotificationSubtype(rawValue: "DOWNGRADE")
    /// `UPGRADE`.
    public static let upgrade = NotificationSubtype(rawValue: "UPGRADE")
    /// `AUTO_RENEW_ENABLED`.
    public static let autoRenewEnabled = NotificationSubtype(rawValue: "AUTO_RENEW_ENABLED")
    /// `AUTO_RENEW_DISABLED`.
    public static let autoRenewDisabled = NotificationSubtype(rawValue: "AUTO_RENEW_DISABLED")
    /// `VOLUNTARY`.
    public static let voluntary = NotificationSubtype(rawValue: "VOLUNTARY")
    /// `BILLING_RETRY`.
    public static let billingRetry = NotificationSubtype(rawValue: "BILLING_RETRY")
    /// `PRICE_INCREASE`.
    public static let priceIncrease = NotificationSubtype(rawValue: "PRICE_INCREASE")
    /// `GRACE_PERIOD`.
    public static let gracePeriod = NotificationSubtype(rawValue: "GRACE_PERIOD")
    /// `PENDING`.
    public static let pending = NotificationSubtype(rawValue: "PENDING")
    /// `ACCEPTED`.
    public static let accepted = NotificationSubtype(rawValue: "ACCEPTED")
    /// `BILLING_RECOVERY`.
    public static let billingRecovery = NotificationSubtype(rawValue: "BILLING_RECOVERY")
    /// `PRODUCT_NOT_FOR_SALE`.
    public static let productNotForSale = NotificationSubtype(rawValue: "PRODUCT_NOT_FOR_SALE")
    /// `SUMMARY`.
    public static let summary = NotificationSubtype(rawValue: "SUMMARY")
    /// `FAILURE`.
    public static let failure = NotificationSubtype(rawValue: "FAILURE")
    /// `UNREPORTED`.
    public static let unreported = NotificationSubtype(rawValue: "UNREPORTED")
}

/// Why a customer asked for a refund (Apple's `consumptionRequestReason`).
///
/// A value Apple adds later is kept as sent, not refused.
public struct ConsumptionRequestReason: RawRepresentable, Hashable, Sendable {
    public var rawValue: String

    /// Wraps a raw `consumptionRequestReason` value, known or not.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The customer did not mean to buy.
    public static let unintendedPurchase = ConsumptionRequestReason(rawValue: "UNINTENDED_PURCHASE")
    /// The customer did not receive what they bought.
    public static let fulfillmentIssue = ConsumptionRequestReason(rawValue: "FULFILLMENT_ISSUE")
    /// The customer was not satisfied.
    public static let unsatisfiedWithPurchase = ConsumptionRequestReason(rawValue: "UNSATISFIED_WITH_PURCHASE")
    /// A legal reason.
    public static let legal = ConsumptionRequestReason(rawValue: "LEGAL")
    /// Another reason.
    public static let other = ConsumptionRequestReason(rawValue: "OTHER")
}
