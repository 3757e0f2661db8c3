public import Masthead

/// What ingestion writes to a store: transactions and renewal infos, links of subscriptions to
/// users, receipts, notifications, app account tokens, issues and the change log, in
/// transactions with a savepoint per job. ``EntitlementStore`` adds the reader's role.
public protocol StoreWriter: AnyObject {
    // MARK: Transactions

    /// Runs `body` in a write transaction: committed when it returns, rolled back when it throws.
    func inTransaction<R>(_ body: () throws(StorageError) -> R) throws(StorageError) -> R

    /// Runs `body` inside the open transaction so that its writes are undone alone when it throws
    /// (a savepoint), the rest of the transaction going on.
    /// - Returns: `body`'s result or error.
    /// - Throws: when the store cannot set or undo the savepoint: the transaction must be rolled back.
    func inSavepoint<R, E: Error>(_ body: () throws(E) -> R) throws(StorageError) -> Result<R, E>

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
    /// and `notificationUUID`, and whether it came `signed` (version 2); returns its id.
    /// - Throws: ``StorageError/notificationAlreadyRecorded(uuid:)`` when a notification with
    ///   `uuid` is stored already (a second delivery): nothing is stored, and the caller applies
    ///   nothing either.
    func recordNotification(
        type: String, subtype: String?, uuid: String?, environment: Environment?, originalTransactionIds: [String], body: String,
        signed: Bool, received: Instant
    ) throws(StorageError) -> Int64

    /// Keeps the body of a refused notification, with the reason (cut to
    /// ``RejectedNotification/maxReasonBytes``), for forensics; it is never applied. Only the
    /// newest of each kind are kept (the store's `rejectedNotificationRetention`). Returns its id.
    func recordRejectedNotification(kind: RejectedNotification.Kind, reason: String, body: [UInt8], now: Instant) throws(StorageError) -> Int64

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

    /// Queues a Set App Account Token call for each of `subscriptions` linked to `userId` whose
    /// signed data never carried an app account token, when the user has one: the user's first
    /// linked token (the oldest; of two linked at once, the first in byte order), kept with the
    /// call. A subscription queued before (whatever came of it) is not queued again. Returns the
    /// subscriptions queued now.
    func queueAppAccountTokenUpdates(
        userId: String, subscriptions: [(environment: Environment, originalTransactionId: String)], now: Instant
    ) throws(StorageError) -> [(environment: Environment, originalTransactionId: String)]

    /// Claims the pending Set App Account Token call due first (its next attempt at or before
    /// `now`): its attempts counted, and not due again before `retryAfter`, so that a sender that
    /// stops before recording its outcome sends it again then. Nil when none is due, or another
    /// connection claimed it first.
    func claimAppAccountTokenUpdate(now: Instant, retryAfter: Instant) throws(StorageError) -> AppAccountTokenUpdate?

    /// Records what came of a Set App Account Token call: `sent`, `failed` (given up), or
    /// `pending` with its next attempt; `lastError` says why it failed (nil when sent).
    func recordAppAccountTokenUpdate(
        environment: Environment, originalTransactionId: String, state: AppAccountTokenUpdate.State, nextAttempt: Instant?, lastError: String?
    ) throws(StorageError)

    // MARK: The outbox

    /// Writes messages into the outbox in the caller's transaction: they are delivered only once it
    /// commits, and are lost only if it rolls back. Each is pending, due at `now`; ids follow the
    /// order of commits, then of `messages` (see ``OutboxStore``).
    func enqueueOutbound(_ messages: [OutboundMessage], now: Instant) throws(StorageError)

    // MARK: Grants

    /// Stores a publisher's grant (R17) for a user whole: a grant of the same id replaces the
    /// stored one entirely (a correction, `revokedAt` included), the user is recorded when new.
    /// It records no change: the caller logs ``Change/user(_:)`` unless the answer is
    /// ``GrantWrite/unchanged``, as the service's commit queue does for every write.
    /// - Throws: ``StorageError/grantBelongsToAnotherUser(grantId:userId:)`` when another user
    ///   holds the grant id (ids compared by their bytes); nothing is changed then.
    func putGrant(_ grant: Grant, userId: String, now: Instant) throws(StorageError) -> GrantWrite

    /// Revokes a user's grant as of `now` when it is not revoked yet (the record is kept); returns
    /// it as it is now stored, with ``GrantWrite/changed`` when revoked now or
    /// ``GrantWrite/unchanged`` when it already was, or nil when the user holds no grant of that
    /// id (another user's grant is left alone). It records no change (see ``putGrant(_:userId:now:)``).
    func revokeGrant(_ grantId: String, userId: String, now: Instant) throws(StorageError) -> (grant: Grant, write: GrantWrite)?

    /// Stores many grants, each for its user as ``putGrant(_:userId:now:)`` does, in one
    /// transaction (the caller's, or one of its own), and records each user whose grants changed
    /// in the change log under `origin`. Answers each entry's outcome in order: a grant id held
    /// by another user is that entry's ``StorageError/grantBelongsToAnotherUser(grantId:userId:)``
    /// and the others are stored; any other failure is thrown and nothing is stored.
    func applyGrants(_ entries: [UserGrant], now: Instant, origin: Int64) throws(StorageError) -> [Result<GrantWrite, StorageError>]

    /// Revokes as of `now`, in one transaction (the caller's, or one of its own), every grant of
    /// `source` (its exact bytes) not revoked yet whose id is not in `grantIds`, and records their
    /// users in the change log under `origin`; returns the grants revoked, by grant id.
    func revokeGrants(source: String, keeping grantIds: Set<ExactKey>, now: Instant, origin: Int64) throws(StorageError) -> [(userId: String, grantId: String)]

    // MARK: Google Play

    /// Takes the lock every Google Play write takes first (PostgreSQL's lock of the purchases
    /// table, held until the transaction ends; nothing on SQLite), for a transaction that reads
    /// a purchase before it stores a read of it.
    func lockGooglePlayPurchases() throws(StorageError)

    /// Stores a read of a Google Play purchase token (R18): upserts the purchase (a read older
    /// than the newest one stored changes none of its state), adds the orders not stored yet and
    /// updates a stored order's expiry when this read, being the newest, gives it another (an
    /// order keeps its first `observed`, start, product and environment; a void recorded for it
    /// before it was stored applies), links the token into its chain through
    /// `linkedPurchaseToken` (the chain's id is the first order of its first token; a link that
    /// would close a cycle through the stored tokens is not stored), and gives a user to the
    /// tokens of the chain that have none: the one a token's `obfuscatedExternalAccountId` names
    /// (its exact bytes; such a token is never given another), else the chain's user when its
    /// tokens are linked to or name one user between them (R18). The purchase is stored as of
    /// `now`, the instant it was read (asked of Google), which decides which read is the newest. An unacknowledged purchase is owed an
    /// acknowledgement while active, in grace, canceled, on hold, paused or a purchased one-time
    /// product, due now when it was not owed before (a read never moves a due time); once
    /// acknowledged it stays so.
    /// - Returns: the users whose history changed (orders, chain id or user), sorted by bytes.
    func storeGooglePlayObservation(
        _ observation: GooglePlayObservation, packageName: String, kind: GooglePlayPurchaseKind, body: [UInt8], now: Instant
    ) throws(StorageError) -> [String]

    /// Links a Google Play purchase token to a user (recording the user when new), with the
    /// tokens of its chain that have no user and name this one, and those that name nobody when
    /// no token of the chain is linked to or names another user (R18).
    /// - Returns: ``GooglePlayLink/conflict(owner:)`` when the token names or is linked to
    ///   another user, or names nobody and a token of its chain is linked to or names another
    ///   user (nothing changes); ``GooglePlayLink/unknownToken`` when the token was never stored.
    func linkGooglePlayPurchase(token: String, to userId: String) throws(StorageError) -> GooglePlayLink

    /// Records that Google voided an order of a purchase token (a refund or chargeback: `prorated`
    /// for a prorated refund, R5.3; else R5.1) at `at`. The earliest void of an order counts; one
    /// for an order not stored yet applies when a read stores it. The voids of tokens never stored
    /// recorded more than ``GooglePlayVoids/retentionMilliseconds`` before `now` are deleted here.
    /// - Returns: the users whose history changed.
    func voidGooglePlayOrder(token: String, orderId: String, at: Instant, prorated: Bool, now: Instant) throws(StorageError) -> [String]

    /// Records a Pub/Sub message id (its exact bytes); answers whether it was new. Ids received
    /// more than ``GooglePlayMessages/retentionMilliseconds`` before `now` are deleted here.
    func recordGooglePlayMessage(_ messageId: String, now: Instant) throws(StorageError) -> Bool

    /// Records an attempt to acknowledge a purchase: done, failed and due again after
    /// ``GooglePlayAcknowledgement/retryDelayMilliseconds(afterAttempts:)``, or given up (not due
    /// again, nor owed again by a later read). Nothing for a token never stored.
    func recordGooglePlayAcknowledgement(token: String, outcome: GooglePlayAcknowledgement, now: Instant) throws(StorageError)

    /// Claims the acknowledgement due first at `now` (nil when none is): it is not due again
    /// before `leaseUntil`, so that another instance on the database does not try it at the same
    /// time, and is tried again then if its outcome is never recorded. Of two connections claiming
    /// at once, the second skips or finds it claimed.
    func claimGooglePlayAcknowledgement(now: Instant, leaseUntil: Instant) throws(StorageError) -> StoredGooglePlayPurchase?

    // MARK: Issues

    /// Publishes or corrects an issue; it survives restarts.
    func upsertIssue(publicationId: String, issue: Issue) throws(StorageError)

    // MARK: The change log

    /// Records what a write changed, in the caller's transaction, so it commits (or rolls back)
    /// with the write.
    /// - Parameters:
    ///   - changes: the users and published issues the write changed.
    ///   - origin: the writer's own id, so that its readers can skip what it already knows.
    func recordChanges(_ changes: [Change], origin: Int64) throws(StorageError)

    /// Deletes all but the newest entries of the change log (the newest is always kept).
    func pruneChangeLog() throws(StorageError)
}
