// The value sets of Apple's signed renewal info and subscription status fields, each kept as sent
// so that a value Apple adds later is not refused.

/// The status of an auto-renewable subscription as of a notification's `signedDate` (Apple's `status`).
///
/// A value Apple adds later is kept as sent, not refused.
public struct AppStoreSubscriptionStatus: RawRepresentable, Hashable, Sendable {
    public var rawValue: Int32

    /// Wraps a raw `status` value, known or not.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// Active.
    public static let active = AppStoreSubscriptionStatus(rawValue: 1)
    /// Expired.
    public static let expired = AppStoreSubscriptionStatus(rawValue: 2)
    /// In the billing retry period.
    public static let billingRetry = AppStoreSubscriptionStatus(rawValue: 3)
    /// In the billing grace period.
    public static let billingGracePeriod = AppStoreSubscriptionStatus(rawValue: 4)
    /// Revoked.
    public static let revoked = AppStoreSubscriptionStatus(rawValue: 5)
}

/// Whether a subscription renews (Apple's `autoRenewStatus`).
///
/// A value Apple adds later is kept as sent, not refused.
public struct AutoRenewStatus: RawRepresentable, Hashable, Sendable {
    public var rawValue: Int32

    /// Wraps a raw `autoRenewStatus` value, known or not.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// Automatic renewal is off.
    public static let off = AutoRenewStatus(rawValue: 0)
    /// Automatic renewal is on.
    public static let on = AutoRenewStatus(rawValue: 1)
}

/// Why a subscription expired (Apple's `expirationIntent`).
///
/// A value Apple adds later is kept as sent, not refused.
public struct ExpirationIntent: RawRepresentable, Hashable, Sendable {
    public var rawValue: Int32

    /// Wraps a raw `expirationIntent` value, known or not.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The customer cancelled.
    public static let customerCancelled = ExpirationIntent(rawValue: 1)
    /// A billing error.
    public static let billingError = ExpirationIntent(rawValue: 2)
    /// The customer did not consent to a price increase.
    public static let customerDidNotConsentToPriceIncrease = ExpirationIntent(rawValue: 3)
    /// The product was not available at renewal.
    public static let productNotAvailable = ExpirationIntent(rawValue: 4)
    /// Another reason.
    public static let other = ExpirationIntent(rawValue: 5)
}

/// Whether the customer accepted a price increase (Apple's `priceIncreaseStatus`).
///
/// A value Apple adds later is kept as sent, not refused.
public struct PriceIncreaseStatus: RawRepresentable, Hashable, Sendable {
    public var rawValue: Int32

    /// Wraps a raw `priceIncreaseStatus` value, known or not.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The customer has not responded to a price increase that needs consent.
    public static let customerHasNotResponded = PriceIncreaseStatus(rawValue: 0)
    /// The customer consented, or was told of an increase that needs no consent.
    public static let customerConsentedOrWasNotifiedWithoutNeedingConsent = PriceIncreaseStatus(rawValue: 1)
}
