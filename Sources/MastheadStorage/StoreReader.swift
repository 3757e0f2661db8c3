public import Masthead

/// What the download check, the polling job and `masthead audit --database` read of a store: a
/// user's purchase history, the users, app account tokens, notifications, issues, the change log
/// and the commit counter. ``EntitlementStore`` adds the writer's role.
///
/// Reads outside a transaction each see every commit made before them, and
/// ``readSnapshot(_:)`` gives several reads one snapshot. No call leaves a read transaction open,
/// so a reading connection pins no old state between calls.
public protocol StoreReader: AnyObject {
    /// Runs `body` so that the reads it makes on this store see one snapshot, whatever other
    /// connections commit meanwhile; `body`'s error is rethrown as is.
    func readSnapshot<R>(_ body: () throws -> R) throws -> R

    // MARK: Reading

    /// Everything stored for the subscriptions linked to `userId`, the user's grants, and the orders
    /// of the Google Play purchases linked to them as transactions (R18; empty for a user never seen):
    /// the user's stored history when a write stored it, in one read (``StorePrimitives/history(forUser:)``).
    func history(forUser userId: String) throws(StorageError) -> PurchaseHistory

    /// Whether a user has been seen and, when they have, their stored history, in one statement
    /// (one snapshot without a transaction): ``KnownUserHistory/notStored`` when their history is
    /// to be read from the tables. A row that is not a whole history throws
    /// ``StorageError/storedHistory(userId:problem:)``.
    func knownUserHistory(_ userId: String) throws(StorageError) -> KnownUserHistory

    /// The user's history read from the tables it is stored in, never from a stored row: what
    /// to read after ``knownUserHistory(_:)`` answered ``KnownUserHistory/notStored``.
    func historyFromTables(forUser userId: String) throws(StorageError) -> PurchaseHistory

    /// The publisher's grants of a user (R17), by grant id (byte order); the same as their
    /// history's ``PurchaseHistory/grants``.
    func grants(forUser userId: String) throws(StorageError) -> [Grant]

    /// Whether a user has been seen (posted a receipt).
    func userExists(_ userId: String) throws(StorageError) -> Bool

    /// How many users have been seen.
    func userCount() throws(StorageError) -> Int

    /// Up to `limit` user ids in id order (byte order of their UTF-8), after `userId` (from the
    /// first when nil): pages for a reader walking every user.
    func userIds(after userId: String?, limit: Int) throws(StorageError) -> [String]

    /// Every Set App Account Token call queued, with where it stands and why it last failed, in
    /// (environment, original transaction id) order.
    func appAccountTokenUpdates() throws(StorageError) -> [(update: AppAccountTokenUpdate, state: AppAccountTokenUpdate.State, lastError: String?)]

    /// The users linked to these subscriptions, sorted.
    func users(linkedTo originalTransactionIds: [String], environment: Environment) throws(StorageError) -> [String]

    /// The user who owns an app account token (in either case), or nil when nobody does or it is not a UUID.
    func userId(forAppAccountToken token: String) throws(StorageError) -> String?

    /// The app account tokens of a user, in the order they were linked.
    func appAccountTokens(forUser userId: String) throws(StorageError) -> [AppAccountToken]

    /// Whether a notification with this `notificationUUID` is stored.
    func hasNotification(uuid: String) throws(StorageError) -> Bool

    /// The newest `limit` rejected notifications, newest first; their bodies only when `withBodies`.
    func rejectedNotifications(limit: Int, withBodies: Bool) throws(StorageError) -> [RejectedNotification]

    /// Issues published or corrected through the API, by publication, then publication instant and id.
    func publishedIssues() throws(StorageError) -> [(publicationId: String, issue: Issue)]

    /// Subscriptions whose latest expiry lies in `[from, to)`, with their user, latest receipt and
    /// whether any of their transactions is signed (``RefreshDue/signed``: a stored `signedDate`),
    /// by expiry.
    func refreshDue(from: Instant, to: Instant) throws(StorageError) -> [RefreshDue]

    /// The subscriptions none of whose stored transactions came from signed data (no
    /// `signedDate`), with the user each is linked to, in environment and original transaction id order.
    func receiptOnlySubscriptions() throws(StorageError) -> [ReceiptOnlySubscription]

    /// Everything stored for one subscription, linked or not: its transactions and renewal infos.
    func history(environment: Environment, originalTransactionId: String) throws(StorageError) -> PurchaseHistory

    // MARK: Google Play

    /// A stored Google Play purchase token (its exact bytes), or nil.
    func googlePlayPurchase(token: String) throws(StorageError) -> StoredGooglePlayPurchase?

    /// The orders of a purchase token, by start, then order id.
    func googlePlayOrders(token: String) throws(StorageError) -> [GooglePlayOrder]

    /// Up to `limit` purchases owed an acknowledgement due by `dueBy`, the earliest due first.
    func googlePlayUnacknowledged(dueBy: Instant, limit: Int) throws(StorageError) -> [StoredGooglePlayPurchase]

    /// How many purchases owed an acknowledgement were first read before `olderThan`.
    func googlePlayUnacknowledgedCount(olderThan: Instant) throws(StorageError) -> Int

    // MARK: Support tools

    /// Every user `text` names exactly (its bytes): as their user id, one of their app account
    /// tokens (in either case), the original transaction id of a subscription linked to them or the
    /// id of one of its transactions (in either environment), one of their grant ids, or one of
    /// their Google Play purchase tokens or order ids; sorted by
    /// user id, then kind (``LookupMatch/precedes(_:_:)``). Empty when it names nobody.
    func lookup(_ text: String) throws(StorageError) -> [LookupMatch]

    /// The subscriptions linked to a user, in environment and original transaction id order.
    func subscriptions(forUser userId: String) throws(StorageError) -> [LinkedSubscription]

    /// The newest `limit` notifications naming a subscription linked to `userId`, newest first.
    func notifications(forUser userId: String, limit: Int) throws(StorageError) -> [StoredNotification]

    // MARK: The change log

    /// The position after the newest change-log entry: changes committed later are read from there.
    func changeLogPosition() throws(StorageError) -> Int64

    /// The changes recorded after `position` by writers other than `origin`, read in one snapshot,
    /// and whether some were pruned before they could be read.
    func changes(after position: Int64, notFrom origin: Int64) throws(StorageError) -> ChangeLogRead

    /// A counter that moves whenever anyone commits, read without a query; nil when the backend
    /// has none (the change log is then read before every answer).
    ///
    /// The service compares it before every answer from its cache: SQLite's shared-memory commit
    /// counter, or for PostgreSQL a new connection listening for the notifications that
    /// ``StoreWriter/recordChanges(_:origin:)`` sends (it lasts as long as the value is kept).
    func commitCounter() throws(StorageError) -> StoreCommitCounter?
}
