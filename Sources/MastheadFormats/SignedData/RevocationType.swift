/// How a transaction was revoked (Apple's `revocationType`).
///
/// A value Apple adds later is kept as sent, not refused.
public struct RevocationType: RawRepresentable, Hashable, Sendable {
    public var rawValue: String

    /// Wraps a raw `revocationType` value, known or not.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A full refund.
    public static let refundFull = RevocationType(rawValue: "REFUND_FULL")
    /// A prorated refund.
    public static let refundProrated = RevocationType(rawValue: "REFUND_PRORATED")
    /// Revoked from a family member by Family Sharing.
    public static let familyRevoke = RevocationType(rawValue: "FAMILY_REVOKE")
}
