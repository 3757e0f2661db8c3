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
