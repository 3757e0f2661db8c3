public import Masthead

/// An institutional licence: a number of seats, each giving its member access of one style to
/// publications from ``start`` to ``end`` (open-ended without one).
public struct Licence: Hashable, Sendable {
    public var licenceId: String
    /// The publications, in byte order of their ids, each once.
    public var publications: [String]
    public var access: AccessStyle
    public var start: Instant
    public var end: Instant?
    /// How many members it may have at once (at least 1).
    public var seats: Int

    /// A licence; the publications are kept in byte order of their ids.
    public init(licenceId: String, publications: [String], access: AccessStyle, start: Instant, end: Instant?, seats: Int) {
        self.licenceId = licenceId
        self.publications = publications.sorted { $0.precedesInBytes($1) }
        self.access = access
        self.start = start
        self.end = end
        self.seats = seats
    }
}

/// One span of a user's membership of a licence: from joining until leaving. A user who leaves
/// and joins again has a new membership, numbered after the previous one, each keeping its own
/// dates.
public struct LicenceMembership: Hashable, Sendable {
    public var licenceId: String
    public var userId: String
    /// 1 for the user's first membership of the licence, 2 for the next, and so on.
    public var number: Int
    public var joined: Instant
    /// When the member left; nil while a member.
    public var left: Instant?

    /// The grant it gives: `licence:<licenceId>` (with `#<number>` after the first membership),
    /// source `licence`, the licence's publications and access from the later of joining and the
    /// licence's start to the earlier of leaving and its end; nil when that span is empty.
    public func grant(of licence: Licence) -> Grant? {
        let start = max(joined, licence.start)
        let ends = [left, licence.end].compactMap { $0 }
        let end = ends.min()
        if let end, end <= start { return nil }
        let id = Grant.licenceMembershipPrefix + licence.licenceId + (number > 1 ? "#\(number)" : "")
        return Grant(grantId: id, source: "licence", scope: .span(publications: licence.publications, access: licence.access, window: nil), start: start, end: end)
    }
}

/// What asking to join a licence came to.
public enum LicenceJoin: Hashable, Sendable {
    /// Joined now.
    case joined(LicenceMembership)
    /// A member already: the current membership, unchanged.
    case alreadyMember(LicenceMembership)
    /// Every seat is taken.
    case full(seats: Int)
    /// The licence ended: nobody joins it any more.
    case ended(Instant)
    /// No licence has this id.
    case unknownLicence
}

/// Institutional licences and their memberships as a store keeps them. Part of
/// ``EntitlementStore``. A member's access is derived when their history is read: each
/// membership becomes a ``Masthead/Grant`` (``LicenceMembership/grant(of:)``), not a stored grant.
public protocol LicenceStore: AnyObject {
    /// Creates or replaces a licence; answers the users who ever were its members (sorted), whose
    /// answers it changes. Members are kept when the seats go below their number; nobody joins
    /// then until enough have left.
    func putLicence(_ licence: Licence, now: Instant) throws(StorageError) -> [String]

    /// A licence and how many members it has now, or nil when none has this id.
    func licence(_ licenceId: String) throws(StorageError) -> (licence: Licence, members: Int)?

    /// Makes `userId` a member of a licence from `now` (recording the user when new), inside the
    /// caller's write transaction; the seats are counted with the licence locked, so that
    /// connections joining at once never take more than there are.
    func joinLicence(_ licenceId: String, userId: String, now: Instant) throws(StorageError) -> LicenceJoin

    /// Ends the user's current membership of a licence at `now` and answers it; when the user is
    /// not a member now, answers their latest membership unchanged, or nil when they never were.
    func leaveLicence(_ licenceId: String, userId: String, now: Instant) throws(StorageError) -> LicenceMembership?

    /// A licence's memberships, current and past, by user id (byte order) and number, after
    /// `userId` (from the first when nil), at most `limit`.
    func licenceMemberships(_ licenceId: String, after userId: String?, limit: Int) throws(StorageError) -> [LicenceMembership]
}
