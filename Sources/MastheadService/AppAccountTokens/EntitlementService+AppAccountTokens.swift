import Masthead
import MastheadFormats
import MastheadStorage
import Synchronization

extension EntitlementService {
    /// Links an app account token to a user (recording the user when new) through the group
    /// commit; linking it again to the same user changes nothing. `completion` runs after the
    /// commit with the mapping as stored, or the error: ``StorageError/appAccountTokenInUse(token:userId:)``
    /// when another user owns the token (nothing changed).
    func linkAppAccountToken(_ token: String, userId: String, completion: @escaping @Sendable (Result<AppAccountToken, any Error>) -> Void) {
        let now = clock()
        write({ store in (try store.linkAppAccountToken(token, userId: userId, now: now), [.user(userId)]) }, completion: completion)
    }

    /// Removes an app account token from a user through the group commit; `completion` runs after
    /// the commit with the mapping removed, or nil when the user does not own the token.
    func unlinkAppAccountToken(_ token: String, userId: String, completion: @escaping @Sendable (Result<AppAccountToken?, any Error>) -> Void) {
        write({ store in
            let removed = try store.unlinkAppAccountToken(token, userId: userId)
            return (removed, removed == nil ? [] : [.user(userId)])
        }, completion: completion)
    }

    /// A user's app account tokens in the order they were linked, or nil for a user never seen;
    /// read from the database, so they include what other processes committed.
    func appAccountTokens(forUser userId: String) throws -> [AppAccountToken]? {
        try readKnownUser(userId) { store in try store.appAccountTokens(forUser: userId) }
    }

    /// The first subscription of `transactions` whose app account token another user than
    /// `userId` owns (another id's bytes, even a canonically equivalent spelling), or nil: restore
    /// leaves such a subscription where it is. Read from the database.
    func subscriptionOwnedByAnotherUser(_ transactions: [SignedTransaction], userId: String) throws -> (environment: Environment, originalTransactionId: String)? {
        try reader.withLock { reader throws -> (environment: Environment, originalTransactionId: String)? in
            let store = reader.store
            return try store.readSnapshot { () throws -> (environment: Environment, originalTransactionId: String)? in
                for signed in transactions {
                    guard let token = signed.payload.appAccountToken, let owner = try store.userId(forAppAccountToken: token),
                        !owner.sameBytes(as: userId)
                    else { continue }
                    return (signed.transaction.environment, signed.transaction.originalTransactionId)
                }
                return nil
            }
        }
    }
}
