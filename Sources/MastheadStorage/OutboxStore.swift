public import Masthead

/// The outbox as a store keeps it: messages owed to outside endpoints, written with
/// ``StoreWriter/enqueueOutbound(_:now:)`` in the transaction of the change they report,
/// claimed one at a time by delivery workers (of any instance on the database) under a lease,
/// closed with their outcome, listed, replayed and pruned. Part of ``EntitlementStore``.
///
/// Order: a pending message is claimed only when no pending message of the same target and
/// ordering key has a smaller id (ids follow the order of commits); it is enqueued due no
/// earlier than the latest of those. A message that is parked
/// (``OutboundDelivery/State/failed``) no longer holds the others back.
public protocol OutboxStore: AnyObject {
    /// The messages in `state` (any state for nil), newest first, of ids below `before` when it is
    /// given (the next page: the last id of the previous one), at most `limit`.
    func outboundDeliveries(state: OutboundDelivery.State?, before: Int64?, limit: Int) throws(StorageError) -> [OutboundDelivery]

    /// Claims, in the caller's write transaction, the pending message due first (at or before
    /// `now`) that no earlier pending message of its target and ordering key holds back: its
    /// attempts counted, and not due again before `leaseUntil`, so that if its worker stops before
    /// recording the outcome it is sent again then. Another connection claiming at the same time
    /// takes another message, or none. Nil when none is due.
    func claimOutbound(now: Instant, leaseUntil: Instant) throws(StorageError) -> OutboundDelivery?

    /// Records what came of the attempt of `claimed` (as ``claimOutbound(now:leaseUntil:)``
    /// answered it); a retry also holds the later messages of its target and ordering key until
    /// its next attempt, and a retry without an answer (`status` nil: a timeout, a refused
    /// connection) holds every pending message of its target that was due earlier. Answers false, changing nothing, when the claim no longer holds (its
    /// lease ended and another worker claimed it, or it was replayed).
    @discardableResult
    func recordOutbound(_ claimed: OutboundDelivery, outcome: OutboundOutcome, now: Instant) throws(StorageError) -> Bool

    /// Sends a delivered or parked message again: pending, its attempts reset, its retry window
    /// starting `now`, due now.
    func replayOutbound(id: Int64, now: Instant) throws(StorageError) -> OutboundReplay

    /// Replays every parked message as ``replayOutbound(id:now:)`` does; answers how many.
    func replayFailedOutbound(now: Instant) throws(StorageError) -> Int

    /// Parks (``OutboundDelivery/State/failed``, last error "not delivered within a day") every
    /// pending message enqueued (or replayed) before `enqueuedBefore`, without waiting for its
    /// next attempt; answers how many.
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
