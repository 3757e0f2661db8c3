/// How Apple revoked a transaction (its `revocationType`), which decides what the revocation does (R5.3).
///
/// A value Apple adds later is kept as sent, not refused. Values compare by their exact bytes.
public struct RevocationType: RawRepresentable, Hashable, Sendable {
    public var rawValue: String

    /// Wraps a raw `revocationType` value, known or not.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A full refund: the transaction never paid for anything (R5.1).
    public static let refundFull = RevocationType(rawValue: "REFUND_FULL")
    /// A prorated refund: the transaction ends at the revocation (R5.3).
    public static let refundProrated = RevocationType(rawValue: "REFUND_PRORATED")
    /// Revoked from a family member by Family Sharing: the transaction ends at the revocation (R5.3).
    public static let familyRevoke = RevocationType(rawValue: "FAMILY_REVOKE")

    /// Whether the transaction keeps what it paid for before the revocation and ends there (R5.3):
    /// a prorated refund or a Family Sharing revocation. A full refund, and a value the engine
    /// does not know, mean the transaction never paid for anything (R5.1).
    public var endsTransaction: Bool {
        rawValue.sameBytes(as: RevocationType.refundProrated.rawValue) || rawValue.sameBytes(as: RevocationType.familyRevoke.rawValue)
    }

    public static func == (lhs: RevocationType, rhs: RevocationType) -> Bool { lhs.rawValue.sameBytes(as: rhs.rawValue) }

    public func hash(into hasher: inout Hasher) { hasher.combine(ExactKey(rawValue)) }
}
