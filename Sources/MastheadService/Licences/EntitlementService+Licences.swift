import Masthead
import MastheadStorage
import Synchronization

/// Institutional licences and their members.
extension EntitlementService {
    /// The most seats a licence may have.
    static let maxLicenceSeats = 10_000_000

    /// Creates or replaces a licence; every member's (past and present) cached answers are
    /// dropped here and, through the change log, in every other instance. `completion` runs after
    /// the commit with the licence and its current member count, or the error.
    func putLicence(_ licence: Licence, completion: @escaping @Sendable (Result<(licence: Licence, members: Int), any Error>) -> Void) {
        let now = clock()
        write({ store in
            let members = try store.putLicence(licence, now: now)
            let stored = try store.licence(licence.licenceId)
            return ((licence, stored?.members ?? 0), members.map(Change.user))
        }, completion: completion)
    }

    /// Makes a user a member of a licence from now; the seats are counted in the database.
    func joinLicence(_ licenceId: String, userId: String, completion: @escaping @Sendable (Result<LicenceJoin, any Error>) -> Void) {
        let now = clock()
        write({ store in
            let join = try store.joinLicence(licenceId, userId: userId, now: now)
            guard case .joined = join else { return (join, []) }
            return (join, [.user(userId)])
        }, completion: completion)
    }

    /// Ends a user's membership of a licence now (the record stays, with when they left).
    func leaveLicence(_ licenceId: String, userId: String, completion: @escaping @Sendable (Result<LicenceMembership?, any Error>) -> Void) {
        let now = clock()
        write({ store in
            let membership = try store.leaveLicence(licenceId, userId: userId, now: now)
            return (membership, membership == nil ? [] : [.user(userId)])
        }, completion: completion)
    }

    /// A licence and its current member count, read from the database; nil when unknown.
    func licence(_ licenceId: String) throws -> (licence: Licence, members: Int)? {
        try reader.withLock { reader in try reader.store.licence(licenceId) }
    }

    /// A page of a licence's memberships (``MastheadStorage/LicenceStore/licenceMemberships(_:after:limit:)``),
    /// or nil when the licence is unknown; one snapshot.
    func licenceMemberships(_ licenceId: String, after userId: String?, limit: Int) throws -> (licence: Licence, memberships: [LicenceMembership])? {
        try reader.withLock { reader throws -> (licence: Licence, memberships: [LicenceMembership])? in
            let store = reader.store
            return try store.readSnapshot { () throws -> (licence: Licence, memberships: [LicenceMembership])? in
                guard let licence = try store.licence(licenceId)?.licence else { return nil }
                return (licence, try store.licenceMemberships(licenceId, after: userId, limit: limit))
            }
        }
    }
}
