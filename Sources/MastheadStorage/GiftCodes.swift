public import Masthead

/// What each code of a batch of gift codes gives: access of one style to publications, for a
/// calendar duration from its redemption, if redeemed before ``redeemBy``.
public struct GiftOffer: Hashable, Sendable {
    /// The publications, in byte order of their ids, each once.
    public var publications: [String]
    public var access: AccessStyle
    /// How long the access lasts from its start (the redemption, or the end of the reader's
    /// current gift on the same publications and access).
    public var duration: CalendarDuration
    /// The code is refused from this instant on.
    public var redeemBy: Instant

    /// An offer; the publications are kept in byte order of their ids.
    public init(publications: [String], access: AccessStyle, duration: CalendarDuration, redeemBy: Instant) {
        self.publications = publications.sorted { $0.precedesInBytes($1) }
        self.access = access
        self.duration = duration
        self.redeemBy = redeemBy
    }
}

/// What redeeming a gift code came to.
public enum GiftRedemption: Hashable, Sendable {
    /// The code was redeemed now by this user: the gift grant it made.
    case redeemed(Grant)
    /// No code has this hash (never made, or mistyped: the two are not told apart).
    case unknown
    /// The code's `redeemBy` instant has passed.
    case expired(redeemBy: Instant)
    /// The code was redeemed before (by anyone): it is single-use.
    case alreadyRedeemed
}

/// Gift codes as a store keeps them: never the code itself, only its SHA-256 hash, with the
/// offer it carries and, once redeemed, by whom and when. Part of ``EntitlementStore``.
///
/// A redeemed code gives its reader a gift grant, `gift:<id>` (the code's stored id, never the
/// code), stored as the publisher's grants are (``StoreWriter/putGrant(_:userId:now:)``) and
/// read with the reader's history as a ``Masthead/Grant`` of source `gift`.
public protocol GiftCodeStore: AnyObject {
    /// Stores one code per hash, each carrying `offer`; returns their ids, in the order of
    /// `hashes`.
    func createGiftCodes(hashes: [[UInt8]], offer: GiftOffer, now: Instant) throws(StorageError) -> [Int64]

    /// Redeems the code with this hash for `userId` at `now`, inside the caller's write
    /// transaction: exactly one redemption of a code succeeds, whatever other connections do at
    /// the same time. The grant starts now, or at the end of the user's latest gift on the same
    /// publications and access when that ends later, and lasts the offer's duration. The user is
    /// recorded when new.
    func redeemGiftCode(hash: [UInt8], userId: String, now: Instant) throws(StorageError) -> GiftRedemption
}
