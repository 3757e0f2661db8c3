/// Why a transaction happened (Apple's `transactionReason`).
///
/// A value Apple adds later is kept as sent, not refused.
public struct TransactionReason: RawRepresentable, Hashable, Sendable {
    public var rawValue: String

    /// Wraps a raw `transactionReason` value, known or not.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The customer bought it.
    public static let purchase = TransactionReason(rawValue: "PURCHASE")
    /// An auto-renewable subscription renewed.
    public static let renewal = TransactionReason(rawValue: "RENEWAL")
}
