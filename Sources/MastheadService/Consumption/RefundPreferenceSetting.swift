public import MastheadAppStore

/// The `refundPreference` setting: the outcome the publisher prefers for every refund request
/// answered with consumption information, or `none` (the field is left out).
public enum RefundPreferenceSetting: String, CaseIterable, Sendable {
    case none
    case grantFull = "GRANT_FULL"
    case grantProrated = "GRANT_PRORATED"
    case decline = "DECLINE"

    /// Apple's value, or nil for `none`.
    public var preference: ConsumptionRequest.RefundPreference? { ConsumptionRequest.RefundPreference(rawValue: rawValue) }
}
