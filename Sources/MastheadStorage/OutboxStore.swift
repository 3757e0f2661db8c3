public import Masthead

/// The outbox as a store keeps it: messages owed to outside endpoints, written with
/// ``StoreWriter/enqueueOutbound(_:now:)`` in the transaction of the change they report,
/// claimed one at a time by delivery workers (of any instance on the database) under a lease,
/// closed with their outcome, listed, replayed and pruned. Part of ``EntitlementStore``.
///
/// Order: the messages of one target and ordering key are a queue, delivered one at a time in
/// the order they were enqueued (ids follow the order of commits): a message enqueued behind
/// pending ones waits, due no earlier than the latest of them, until those before it are
/// delivered or parked (``OutboundDelivery/State/failed``); only each queue's first pending
/// message (its head) is ever claimed. A replayed message joins its queue behind the pending ones.
public protocol OutboxStore: AnyObject {
    /// The messages in `state` (any state for nil), newest first, of ids below `before` when it is
    /// given (the next page: the last id of the previous one), at most `limit`. Without
    /// `withBodies` their bodies are not read (empty), only their sizes
    /// (``OutboundDelivery/bodyBytes``): a listing's page is up to a few hundred messages.
    func outboundDeliveries(state: OutboundDelivery.State?, before: Int64?, limit: Int, withBodies: Bool) throws(StorageError) -> [OutboundDelivery]

    /// Claims, in the caller's write transaction, the queue heads due first (at or before `now`;
    /// a message without an ordering key is a queue of its own), at most `limit`, in the order
    /// they are due: each one's
    /// attempts counted, and not due again before `leaseUntil`, so that if its worker stops before
    /// recording the outcome it is sent again then. Another connection claiming at the same time
    /// takes other messages, or none. Empty when none is due.
    func claimOutbound(now: Instant, leaseUntil: Instant, limit: Int) throws(StorageError) -> [OutboundDelivery]

    /// Records what came of the attempt of `claimed` (as ``claimOutbound(now:leaseUntil:limit:)``
    /// answered it); a retry also holds the later messages of its target and ordering key until
    /// its next attempt, and a retry without an answer (`status` nil: a timeout, a refused
    /// connection) holds every pending message of its target that was due earlier; a message not
    /// sent is given back, its attempt uncounted. Answers false, changing nothing, when the claim
    /// no longer holds (its lease ended and another worker claimed it, or it was replayed).
    @discardableResult
    func recordOutbound(_ claimed: OutboundDelivery, outcome: OutboundOutcome, now: Instant) throws(StorageError) -> Bool

    /// Sends a delivered or parked message again: pending, its attempts reset, its retry window
    /// starting `now`, due now.
    func replayOutbound(id: Int64, now: Instant) throws(StorageError) -> OutboundReplay

    /// Replays every parked message as ``replayOutbound(id:now:)`` does; answers how many.
    func replayFailedOutbound(now: Instant) throws(StorageError) -> Int

    /// Parks (``OutboundDelivery/State/failed``, last error "not delivered within a day") every
    /// pending message enqueued (or replayed) before `enqueuedBefore`, without waiting for its
    /// next attempt, and gives every queue left without a head its first pending message;
    /// answers how many it parked.
    @discardableResult
    func parkOutbound(enqueuedBefore: Instant, now: Instant) throws(StorageError) -> Int

    /// Deletes the delivered and parked messages finished before `finishedBefore` (never the
    /// newest message, so that ids keep growing); answers how many.
    @discardableResult
    func pruneOutbound(finishedBefore: Instant) throws(StorageError) -> Int

    /// How many messages are pending and parked, and when the oldest pending one was enqueued.
    func outboxBacklog() throws(StorageError) -> OutboxBacklog
}

/// What came of one delivery attempt.
public enum OutboundOutcome: Sendable, Hashable {
    /// The endpoint answered 2xx (`status`).
    case delivered(status: Int)
    /// It failed and is tried again at `next`: `status` is the endpoint's answer (nil: none came),
    /// `error` says what went wrong.
    case retry(next: Instant, status: Int?, error: String)
    /// It failed and its retry window is over: parked.
    case failed(status: Int?, error: String)
    /// It was not sent (its worker is stopping, or its target gave no answer to an earlier
    /// message of the same batch): the claim is given back, the attempt not counted, and it is
    /// due again at `next`.
    case notSent(next: Instant)
}

/// What a replay came to.
public enum OutboundReplay: Sendable, Hashable {
    /// Pending again, as it is now stored.
    case replayed(OutboundDelivery)
    /// It is pending already: nothing changed.
    case pending
    /// No message has this id (never, or pruned).
    case unknown
}

/// The outbox's size, for `/metrics`.
public struct OutboxBacklog: Sendable, Hashable {
    /// Messages still to deliver.
    public var pending: Int
    /// Parked messages (kept until replayed or pruned).
    public var failed: Int
    /// When the oldest pending message was enqueued (or replayed); nil when none is pending.
    public var oldestPending: Instant?

    /// A backlog (see the properties of the same names).
    public init(pending: Int, failed: Int, oldestPending: Instant?) {
        self.pending = pending
        self.failed = failed
        self.oldestPending = oldestPending
    }
}
