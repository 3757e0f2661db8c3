public import Masthead

/// What the service and `masthead audit --database` need of a store: one connection to the
/// service's durable state, which ``SQLiteStore`` and ``PostgreSQLStore`` implement.
///
/// A store keeps users and the subscriptions linked to them (R14: environment + original
/// transaction id), every transaction (idempotent per environment + transaction id, copies merged
/// as the engine merges them, `Transaction.merged(with:)`: of signed copies the one signed last
/// gives the state, R2.8; unsigned copies field by field, R2.3: earliest purchase and
/// cancellation, latest expiry, flags kept once set), every
/// distinct renewal info per subscription with its evidence instant (a history: which one is in
/// force as of an instant is the engine's question, R2.7), every notification's raw body (once per
/// `notificationUUID`), the bodies of notifications refused for their signature (bounded), the
/// users' app account tokens, the latest base64 receipt per subscription for polling, issues
/// published through the API, and a change log telling every process on the same data what the
/// others' commits changed.
///
/// A value is one connection, used by one thread at a time. Writes run inside
/// ``inTransaction(_:)``; reads outside a transaction each see every commit made before them, and
/// ``readSnapshot(_:)`` gives several reads one snapshot. No call leaves a read transaction open,
/// so a reading connection pins no old state between calls.
public protocol EntitlementStore: AnyObject {
    // MARK: Transactions

    /// Runs `body` in a write transaction: committed when it returns, rolled back when it throws.
    func inTransaction<R>(_ body: () throws(StorageError) -> R) throws(StorageError) -> R

    /// Runs `body` inside the open transaction so that its writes are undone alone when it throws
    /// (a savepoint), the rest of the transaction going on.
    /// - Returns: `body`'s result or error.
    /// - Throws: when the store cannot set or undo the savepoint: the transaction must be rolled back.
    func inSavepoint<R, E: Error>(_ body: () throws(E) -> R) throws(StorageError) -> Result<R, E>

    /// Runs `body` so that the reads it makes on this store see one snapshot, whatever other
    /// connections commit meanwhile; `body`'s error is rethrown as is.
    func readSnapshot<R>(_ body: () throws -> R) throws -> R

    /// Makes the store's main file hold every commit before the connection closes at a clean
    /// stop: SQLite copies its write-ahead log into the database file and empties it (so a copy
    /// of the `.sqlite` file alone is a complete backup); PostgreSQL has nothing to do.
    func checkpoint() throws(StorageError)

    // MARK: Writing

    /// Stores transactions (merging each with its stored copy as `Transaction.merged(with:)` does,
    /// R2.3, R2.8) and renewal infos (each distinct one once, with
    /// its evidence instant, R2.7; one without an original transaction id is resolved by product
    /// against `transactions`, R2.6, and left out when nothing matches).
    func save(transactions: [Transaction], renewals: [RenewalInfo]) throws(StorageError)

    /// Links the subscriptions of `transactions` to `userId` (recording the user and the latest
    /// receipt), applying `restore` to subscriptions linked to someone else; returns the users they
    /// were taken from, sorted.
    /// - Throws: ``StorageError/receiptAlreadyInUse(environment:originalTransactionId:userId:)`` when
    ///   `restore` refuses to move one; nothing is linked then.
    func link(userId: String, transactions: [Transaction], latestReceipt: String?, restore: RestoreBehaviour, now: Instant) throws(StorageError) -> [String]

    /// Records the latest base64 receipt of subscriptions, linked or not yet linked.
    func recordLatestReceipt(_ receipt: String, environment: Environment, originalTransactionIds: [String]) throws(StorageError)

    /// Keeps a notification's raw body, for audit, with its `notificationType` and (V2) `subtype`
    /// and `notificationUUID`; returns its id.
    /// - Throws: ``StorageError/notificationAlreadyRecorded(uuid:)`` when a notification with
    ///   `uuid` is stored already (a second delivery): nothing is stored, and the caller applies
    ///   nothing either.
    func recordNotification(
        type: String, subtype: String?, uuid: String?, environment: Environment?, originalTransactionIds: [String], body: String,
        received: Instant
    ) throws(StorageError) -> Int64

    /// Keeps the body of a notification refused for its signature, with the reason, for
    /// forensics; it is never applied. Only the newest are kept (the store's
    /// `rejectedNotificationRetention`). Returns its id.
    func recordRejectedNotification(reason: String, body: [UInt8], now: Instant) throws(StorageError) -> Int64

    /// Links an app account token to a user (recording the user when new), and with it every
    /// subscription not linked to anyone whose signed transactions carried the token
    /// (``linkSubscription(environment:originalTransactionId:appAccountToken:now:)``); linking it
    /// again to the same user changes nothing. Returns the mapping as stored.
    /// - Parameter token: a UUID, 8-4-4-4-12 hexadecimal digits in either case; it is stored in lower case.
    /// - Throws: ``StorageError/invalidAppAccountToken(_:)`` when `token` is not such a UUID;
    ///   ``StorageError/appAccountTokenInUse(token:userId:)`` when another user owns it (nothing changes).
    func linkAppAccountToken(_ token: String, userId: String, now: Instant) throws(StorageError) -> AppAccountToken

    /// Links the subscription of a signed transaction (from a version 2 notification) to a user:
    /// the user it is linked to already, else the owner of `appAccountToken`, linked now. When
    /// nobody owns the token yet, the subscription stays unlinked and the token is remembered
    /// with it, so that ``linkAppAccountToken(_:userId:now:)`` links it later. Returns the user it
    /// is linked to, or nil.
    func linkSubscription(environment: Environment, originalTransactionId: String, appAccountToken: String?, now: Instant) throws(StorageError) -> String?

    /// Removes an app account token from a user; returns the mapping removed, or nil when the user
    /// does not own the token (another user's mapping is left alone).
    /// - Throws: ``StorageError/invalidAppAccountToken(_:)`` when `token` is not a UUID.
    func unlinkAppAccountToken(_ token: String, userId: String) throws(StorageError) -> AppAccountToken?

    /// Publishes or corrects an issue; it survives restarts.
    func upsertIssue(publicationId: String, issue: Issue) throws(StorageError)

    // MARK: Reading

    /// Everything stored for the subscriptions linked to `userId` (empty for a user never seen).
    func history(forUser userId: String) throws(StorageError) -> PurchaseHistory

    /// Whether a user has been seen (posted a receipt).
    func userExists(_ userId: String) throws(StorageError) -> Bool

    /// How many users have been seen.
    func userCount() throws(StorageError) -> Int

    /// Up to `limit` user ids in id order (byte order of their UTF-8), after `userId` (from the
    /// first when nil): pages for a reader walking every user.
    func userIds(after userId: String?, limit: Int) throws(StorageError) -> [String]

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

    // MARK: The change log

    /// Records what a write changed, in the caller's transaction, so it commits (or rolls back)
    /// with the write.
    /// - Parameters:
    ///   - changes: the users and published issues the write changed.
    ///   - origin: the writer's own id, so that its readers can skip what it already knows.
    func recordChanges(_ changes: [Change], origin: Int64) throws(StorageError)

    /// Deletes all but the newest entries of the change log (the newest is always kept).
    func pruneChangeLog() throws(StorageError)

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
    /// ``recordChanges(_:origin:)`` sends (it lasts as long as the value is kept).
    func commitCounter() throws(StorageError) -> StoreCommitCounter?
}
