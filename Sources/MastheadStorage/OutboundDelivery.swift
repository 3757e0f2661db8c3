public import Masthead

/// A message of the outbox as stored, with where its delivery stands.
public struct OutboundDelivery: Sendable, Hashable {
    /// Where a delivery stands.
    public enum State: String, Sendable, Hashable, CaseIterable {
        /// Still to deliver: due at ``OutboundDelivery/nextAttempt`` (a claimed one: when its lease ends).
        case pending
        /// The endpoint answered 2xx.
        case delivered
        /// Parked: every attempt failed until its retry window closed; only a replay sends it again.
        case failed
    }

    /// Its number in the outbox: messages are numbered in the order their transactions committed.
    public var id: Int64
    /// The message; its body is empty in a listing (``OutboxStore/outboundDeliveries(state:before:limit:withBodies:)``).
    public var message: OutboundMessage
    /// The size of the message's body in bytes (a listing reads the size, not the body).
    public var bodyBytes: Int
    public var state: State
    /// Attempts begun so far (a claim counts one).
    public var attempts: Int
    /// When it was enqueued (or replayed): its retry window starts then.
    public var enqueued: Instant
    /// When a pending message is due next.
    public var nextAttempt: Instant
    /// When it was delivered or parked; nil while pending.
    public var finished: Instant?
    /// The HTTP status of the last attempt, nil when it got none (refused, timed out) or none was made.
    public var lastStatus: Int?
    /// Why the last attempt failed, nil when it succeeded or none was made.
    public var lastError: String?

    /// A delivery (see the properties of the same names).
    public init(
        id: Int64, message: OutboundMessage, state: State, attempts: Int, enqueued: Instant, nextAttempt: Instant, finished: Instant?,
        lastStatus: Int?, lastError: String?
    ) {
        self.id = id
        self.message = message
        self.bodyBytes = message.body.count
        self.state = state
        self.attempts = attempts
        self.enqueued = enqueued
        self.nextAttempt = nextAttempt
        self.finished = finished
        self.lastStatus = lastStatus
        self.lastError = lastError
    }
}
