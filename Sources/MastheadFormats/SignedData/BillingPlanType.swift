/// How a subscription with a commitment is billed (Apple's `billingPlanType` and `renewalBillingPlanType`).
///
/// A value Apple adds later is kept as sent, not refused.
public struct BillingPlanType: RawRepresentable, Hashable, Sendable {
    public var rawValue: String

    /// Wraps a raw `billingPlanType` value, known or not.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Billed once for the whole commitment.
    public static let billedUpfront = BillingPlanType(rawValue: "BILLED_UPFRONT")
    /// Billed every month of the commitment.
    public static let monthly = BillingPlanType(rawValue: "MONTHLY")
}
