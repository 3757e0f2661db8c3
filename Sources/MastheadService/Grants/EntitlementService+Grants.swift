import Masthead
import MastheadStorage
import Synchronization

/// Publishers' grants (R17), written through the group commit like purchases: each change drops
/// the user's cached answers here and, through the change log, in every other process.
extension EntitlementService {
    /// What storing a grant came to: the grant as stored, and whether its id was new.
    struct WrittenGrant: Sendable {
        var grant: Grant
        var added: Bool
    }

    /// Stores `grant` for `userId` (recording the user when new), replacing the user's grant of
    /// the same id entirely. `completion` runs after the commit with the grant as stored, or the
    /// error: ``StorageError/grantBelongsToAnotherUser(grantId:userId:)`` when another user holds
    /// the id (nothing changed).
    func putGrant(_ grant: Grant, userId: String, completion: @escaping @Sendable (Result<WrittenGrant, any Error>) -> Void) {
        let now = clock()
        write({ store in
            let written = try store.putGrant(grant, userId: userId, now: now)
            return (WrittenGrant(grant: grant, added: written == .added), written == .unchanged ? [] : [.user(userId)])
        }, completion: completion)
    }

    /// Revokes the user's grant `grantId` now, unless it is revoked already (it keeps its
    /// revocation); `completion` runs after the commit with the grant as stored, or nil when the
    /// user has no such grant.
    func revokeGrant(_ grantId: String, userId: String, completion: @escaping @Sendable (Result<Grant?, any Error>) -> Void) {
        let now = clock()
        write({ store in
            guard let revoked = try store.revokeGrant(grantId, userId: userId, now: now) else { return (nil, []) }
            return (revoked.grant, revoked.write == .unchanged ? [] : [.user(userId)])
        }, completion: completion)
    }

    /// A user's grants, or nil for a user never seen; read from the database, so they include
    /// what other processes committed.
    func grants(forUser userId: String) throws -> [Grant]? {
        try readKnownUser(userId) { store in try store.grants(forUser: userId) }
    }

    /// The grant id of a write refused because another user holds it, or nil for any other error.
    static func grantHeldByAnotherUser(_ error: any Error) -> String? {
        guard case .grantBelongsToAnotherUser(let grantId, _) = error as? StorageError else { return nil }
        return grantId
    }
}
