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
