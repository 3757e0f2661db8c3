import Masthead
import MastheadClock
import MastheadStorage
import Synchronization

/// The outbox seen from the service: the writes that claim, close, replay and prune its
/// messages (committed through the writer before they return), the reads that list them, and
/// the delivery threads.
extension EntitlementService {
    /// Starts the delivery threads (`webhookDeliveryThreads` of them) when anything can be
    /// enqueued (`webhookURLs` or `forwardNotificationsTo` set); ``close()`` stops them.
    public func startDeliveringOutbound() {
        guard deliversOutbound else { return }
        let deliverer = OutboundDeliverer(service: self)
        outbound.start(threads: configuration.webhookDeliveryThreads) { [self] stopping in
            deliverOutboundPass(deliverer, stopping: stopping)
        }
    }

    /// Whether anything is enqueued into the outbox: `webhookURLs` or `forwardNotificationsTo` is set.
    var deliversOutbound: Bool { !configuration.webhookURLs.isEmpty || !configuration.forwardNotificationsTo.isEmpty }

    /// Wakes the delivery threads: this process has just committed messages into the outbox.
    public func outboundEnqueued() { outbound.wakeUp() }

    /// One look at the outbox: prunes it when due, then delivers a batch of messages; answers
    /// whether any was delivered (look again at once), false when none was due or the database
    /// failed (wait).
    func deliverOutboundPass(_ deliverer: OutboundDeliverer, stopping: () -> Bool) -> Bool {
        do {
            if outbound.takePruning(monotonicMilliseconds: SystemClock.monotonicMilliseconds()) {
                let parked = try parkOverdueOutbound()
                if parked > 0 { outbound.note("parked \(parked) message(s) not delivered within a day") }
                let pruned = try pruneOutbound()
                if pruned > 0 { outbound.note("deleted \(pruned) delivered or parked message(s) past their retention") }
            }
            guard !stopping() else { return false }
            return try !deliverer.deliver(upTo: OutboundDeliverer.batch, stopping: stopping).isEmpty
        } catch {
            outbound.note("cannot read or write the outbox: \(error)")
            return false
        }
    }

    /// Claims the messages due first, at most `limit`, in one commit made before it returns;
    /// empty when none is due. They are not due again for `leaseMilliseconds` unless their
    /// outcomes are recorded first.
    func claimOutbound(leaseMilliseconds: Int64, limit: Int) throws -> [OutboundDelivery] {
        let now = clock()
        return try answerWrite { store in try store.claimOutbound(now: now, leaseUntil: now.adding(milliseconds: leaseMilliseconds), limit: limit) }
    }

    /// Records attempts' outcomes in one commit made before it returns; for each, false when its
    /// claim had ended.
    func recordOutbound(_ attempts: [(claimed: OutboundDelivery, outcome: OutboundOutcome)]) throws -> [Bool] {
        let now = clock()
        return try answerWrite { store in try attempts.map { attempt in try store.recordOutbound(attempt.claimed, outcome: attempt.outcome, now: now) } }
    }

    /// Replays one message (see ``OutboxStore/replayOutbound(id:now:)``); `completion` runs after
    /// the commit with what came of it, the delivery threads woken.
    func replayOutbound(id: Int64, completion: @escaping @Sendable (Result<OutboundReplay, any Error>) -> Void) {
        let now = clock()
        write({ store in (try store.replayOutbound(id: id, now: now), []) }) { [self] result in
            outbound.wakeUp()
            completion(result)
        }
    }

    /// Replays every parked message; `completion` runs after the commit with how many.
    func replayFailedOutbound(completion: @escaping @Sendable (Result<Int, any Error>) -> Void) {
        let now = clock()
        write({ store in (try store.replayFailedOutbound(now: now), []) }) { [self] result in
            outbound.wakeUp()
            completion(result)
        }
    }

    /// Parks the pending messages enqueued (or replayed) longer ago than the retry window (a
    /// day), without waiting for their next attempt; answers how many.
    func parkOverdueOutbound() throws -> Int {
        let now = clock()
        let cutoff = now.adding(milliseconds: -OutboundDeliverer.retryWindowMilliseconds)
        return try answerWrite { store in try store.parkOutbound(enqueuedBefore: cutoff, now: now) }
    }

    /// Deletes the delivered and parked messages finished more than `webhookRetentionDays` ago.
    func pruneOutbound() throws -> Int {
        let cutoff = clock().adding(milliseconds: -Int64(configuration.webhookRetentionDays) * 86_400_000)
        return try answerWrite { store in try store.pruneOutbound(finishedBefore: cutoff) }
    }

    /// A page of the outbox, newest first, without the bodies (see
    /// ``OutboxStore/outboundDeliveries(state:before:limit:withBodies:)``).
    func outboundDeliveries(state: OutboundDelivery.State?, before: Int64?, limit: Int) throws -> [OutboundDelivery] {
        try reader.withLock { reader throws -> [OutboundDelivery] in
            try reader.store.outboundDeliveries(state: state, before: before, limit: limit, withBodies: false)
        }
    }

    /// The outbox's backlog, read from the database; nil when it cannot be read.
    var outboxBacklog: OutboxBacklog? {
        try? reader.withLock { reader throws -> OutboxBacklog in try reader.store.outboxBacklog() }
    }
}
