/// Whether a subscription renews (Apple's `autoRenewStatus`).
///
/// A value Apple adds later is kept as sent, not refused.
public struct AutoRenewStatus: RawRepresentable, Hashable, Sendable {
    public var rawValue: Int32

    /// Wraps a raw `autoRenewStatus` value, known or not.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// Automatic renewal is off.
    public static let off = AutoRenewStatus(rawValue: 0)
    /// Automatic renewal is on.
    public static let on = AutoRenewStatus(rawValue: 1)
}
