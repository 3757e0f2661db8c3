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
