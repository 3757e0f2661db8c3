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
