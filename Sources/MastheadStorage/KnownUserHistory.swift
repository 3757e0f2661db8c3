public import Masthead

/// What one statement tells of a user and their stored history
/// (``StoreReader/knownUserHistory(_:)``).
public enum KnownUserHistory: Sendable {
    /// The user has never been seen.
    case unknownUser
    /// The user's history, from their `user_histories` row.
    case stored(PurchaseHistory)
    /// The user is known but has no row of this format version, or the database has no
    /// `user_histories` table (then whether the user is known is not asked): their history is
    /// read from the tables.
    case notStored
}
