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
