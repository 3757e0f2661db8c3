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
