/// Why the App Store refunded or revoked a transaction (Apple's `revocationReason`).
///
/// A value Apple adds later is kept as sent, not refused.
public struct RevocationReason: RawRepresentable, Hashable, Sendable {
    public var rawValue: Int32

    /// Wraps a raw `revocationReason` value, known or not.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// Refunded for another reason, such as an accidental purchase.
    public static let refundedForOtherReason = RevocationReason(rawValue: 0)
    /// Refunded because of an actual or perceived issue in the app.
    public static let refundedDueToIssue = RevocationReason(rawValue: 1)
}
