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
