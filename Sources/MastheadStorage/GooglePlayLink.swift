import Masthead

/// What linking a Google Play purchase token to a user did
/// (``StoreWriter/linkGooglePlayPurchase(token:to:)``).
public enum GooglePlayLink: Hashable, Sendable {
    /// The token and every token of its chain are the user's now: their history changed.
    case linked
    /// The token and its chain were the user's already: nothing changed.
    case alreadyLinked
    /// A token of the chain belongs to another user (`owner`): nothing changed.
    case conflict(owner: String)
    /// The token was never stored (read it first): nothing changed.
    case unknownToken

    /// Links compare and hash an owner by its exact bytes.
    public static func == (lhs: GooglePlayLink, rhs: GooglePlayLink) -> Bool {
        switch (lhs, rhs) {
        case (.linked, .linked), (.alreadyLinked, .alreadyLinked), (.unknownToken, .unknownToken): true
        case (.conflict(let left), .conflict(let right)): left.sameBytes(as: right)
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .linked: hasher.combine(0)
        case .alreadyLinked: hasher.combine(1)
        case .conflict(let owner):
            hasher.combine(2)
            hasher.combine(ExactKey(owner))
        case .unknownToken: hasher.combine(3)
        }
    }
}
