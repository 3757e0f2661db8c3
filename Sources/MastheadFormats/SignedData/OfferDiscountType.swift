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
