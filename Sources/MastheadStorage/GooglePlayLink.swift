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
}
