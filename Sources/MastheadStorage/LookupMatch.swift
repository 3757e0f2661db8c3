public import Masthead

/// A user a support tool's search text names, and how: the text is exactly (byte for byte) one of
/// the user's ids of ``Kind``.
public struct LookupMatch: Hashable, Sendable {
    /// Which of a user's ids the text is.
    public enum Kind: String, CaseIterable, Sendable {
        /// The user id itself (a user seen or holding grants).
        case userId
        /// One of the user's app account tokens (in either case).
        case appAccountToken
        /// The original transaction id of a subscription linked to the user.
        case originalTransactionId
        /// The id of a transaction of a subscription linked to the user.
        case transactionId
        /// The id of one of the user's grants.
        case grantId
        /// A Google Play purchase token linked to the user.
        case googlePlayPurchaseToken
        /// The id of an order of a Google Play purchase linked to the user (as Google writes it, without `googlePlay:`).
        case googlePlayOrderId
    }

    public var userId: String
    public var kind: Kind
    /// The environment of the transaction or subscription matched; nil for the other kinds.
    public var environment: Environment?

    /// Creates a match.
    public init(userId: String, kind: Kind, environment: Environment? = nil) {
        self.userId = userId
        self.kind = kind
        self.environment = environment
    }

    /// Orders by user id (the bytes of its UTF-8), then kind (its name's bytes), then environment
    /// (none first, then by name): the order a lookup answers in.
    public static func precedes(_ lhs: LookupMatch, _ rhs: LookupMatch) -> Bool {
        if !lhs.userId.sameBytes(as: rhs.userId) { return lhs.userId.precedesInBytes(rhs.userId) }
        if lhs.kind != rhs.kind { return lhs.kind.rawValue.precedesInBytes(rhs.kind.rawValue) }
        return (lhs.environment?.rawValue ?? "").precedesInBytes(rhs.environment?.rawValue ?? "")
    }
}
