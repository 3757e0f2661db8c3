public import Masthead

/// The outbox, once for every backend: messages owed to outside endpoints, written in the
/// transaction of the change they report and numbered in commit order.
extension StorePrimitives {
    public func enqueueOutbound(_ messages: [OutboundMessage], now: Instant) throws(StorageError) {
        if messages.isEmpty { return }
        try inWrite { () throws(StorageError) in
            // Numbered the newest id plus one under the table's lock, so that ids follow the
            // commits: a message is never numbered before one committed earlier for the same key.
            try lockForNumbering("outbound_messages")
            var id = try firstRow("SELECT coalesce(max(id), 0) FROM outbound_messages", []) { row throws(Row.Failure) in try row.integer(0) } ?? 0
            let insert = try prepare(
                """
                INSERT INTO outbound_messages
                    (id, kind, target, ordering_key, event_id, content_type, body, state, attempts, enqueued_ms, next_attempt_ms, waiting)
                VALUES ($1, $2, $3, $4, $5, $6, $7, 'pending', 0, $8, $9, $10)
                """)
            // A message with an ordering key behind pending ones waits for them (it is not a head),
            // and is not due before the latest of them, so that it is shown due when it can go.
            let latestAhead = try prepare(
                "SELECT max(next_attempt_ms) FROM outbound_messages WHERE state = 'pending' AND target = $1 AND ordering_key = $2")
            for message in messages {
                id += 1
                var due = now.milliseconds
                var waiting = false
                if let key = message.orderingKey,
                    let ahead = try firstRow(latestAhead, [.text(message.target), .text(key)], { row throws(Row.Failure) in try row.optionalInteger(0) })
                        ?? nil
                {
                    due = max(due, ahead)
                    waiting = true
                }
                try run(
                    insert,
                    [
                        .integer(id), .text(message.kind.rawValue), .text(message.target), .optional(message.orderingKey), .text(message.eventId),
                        .text(message.contentType), .bytes(message.body), .integer(now.milliseconds), .integer(due), .integer(waiting ? 1 : 0),
                    ])
            }
        }
    }

    public func outboundDeliveries(state: OutboundDelivery.State?, before: Int64?, limit: Int, withBodies: Bool) throws(StorageError) -> [OutboundDelivery] {
        let page: [Value] = [.integer(before ?? Int64.max), .integer(Int64(max(0, limit)))]
        let listed = "SELECT \(withBodies ? OutboundColumns.delivery : OutboundColumns.listed) FROM outbound_messages"
        // A literal state, so that the parked ones are read through their own index.
        let filter = state.map { "state = '\($0.rawValue)' AND " } ?? ""
        return try rows("\(listed) WHERE \(filter)id < $1 ORDER BY id DESC LIMIT $2", page) { row throws(Row.Failure) in
            try row.outboundDelivery(listed: !withBodies)
        }
    }

    public func claimOutbound(now: Instant, leaseUntil: Instant, limit: Int) throws(StorageError) -> [OutboundDelivery] {
        try inWrite { () throws(StorageError) -> [OutboundDelivery] in
            // A message another connection has locked (claiming it) is skipped, not waited for.
            let skipLocked = Self.dialect.lockingRead.isEmpty ? "" : " FOR UPDATE SKIP LOCKED"
            let due = try rows(
                OutboundSQL.claimDue + skipLocked, [.integer(now.milliseconds), .integer(Int64(max(0, limit)))]
            ) { row throws(Row.Failure) in try row.outboundDelivery() }
            // Taken only while still due: of two connections claiming one at once, the second finds it claimed.
            let take = try prepare(
                """
                UPDATE outbound_messages SET attempts = attempts + 1, next_attempt_ms = $1
                WHERE id = $2 AND state = 'pending' AND next_attempt_ms <= $3
                """)
            var claimed: [OutboundDelivery] = []
            for var delivery in due {
                guard try run(take, [.integer(leaseUntil.milliseconds), .integer(delivery.id), .integer(now.milliseconds)]) == 1 else { continue }
                delivery.attempts += 1
                delivery.nextAttempt = leaseUntil
                claimed.append(delivery)
            }
            return claimed
        }
    }

    @discardableResult
    public func recordOutbound(_ claimed: OutboundDelivery, outcome: OutboundOutcome, now: Instant) throws(StorageError) -> Bool {
        try inWrite { () throws(StorageError) -> Bool in
            let stillClaimed = "WHERE id = $4 AND state = 'pending' AND attempts = $5"
            let claim: [Value] = [.integer(claimed.id), .integer(Int64(claimed.attempts))]
            switch outcome {
            case .delivered(let status):
                guard
                    try run(
                        "UPDATE outbound_messages SET state = 'delivered', finished_ms = $1, last_status = $2, last_error = $3 \(stillClaimed)",
                        [.integer(now.milliseconds), .integer(Int64(status)), .null] + claim) == 1
                else { return false }
                try releaseFollowers(of: claimed, now: now)
                return true
            case .failed(let status, let error):
                guard
                    try run(
                        "UPDATE outbound_messages SET state = 'failed', finished_ms = $1, last_status = $2, last_error = $3 \(stillClaimed)",
                        [.integer(now.milliseconds), .optional(status.map(Int64.init)), .text(error)] + claim) == 1
                else { return false }
                try releaseFollowers(of: claimed, now: now)
                return true
            case .notSent(let next):
                return try run(
                    "UPDATE outbound_messages SET attempts = attempts - 1, next_attempt_ms = $1 WHERE id = $2 AND state = 'pending' AND attempts = $3",
                    [.integer(next.milliseconds)] + claim) == 1
            case .retry(let next, let status, let error):
                guard
                    try run(
                        "UPDATE outbound_messages SET next_attempt_ms = $1, last_status = $2, last_error = $3 \(stillClaimed)",
                        [.integer(next.milliseconds), .optional(status.map(Int64.init)), .text(error)] + claim) == 1
                else { return false }
                // No answer at all (a timeout, a refused connection): the target is down for
                // every message, not tried again for each before this one's retry.
                if status == nil {
                    try run(
                        "UPDATE outbound_messages SET next_attempt_ms = $1 WHERE state = 'pending' AND target = $2 AND id <> $3 AND next_attempt_ms < $1",
                        [.integer(next.milliseconds), .text(claimed.message.target), .integer(claimed.id)])
                    return true
                }
                // The messages waiting behind it are not due before it either, so that the
                // deliveries listing shows when they can go at the earliest.
                if let key = claimed.message.orderingKey {
                    try run(
                        """
                        UPDATE outbound_messages SET next_attempt_ms = $1
                        WHERE state = 'pending' AND target = $2 AND ordering_key = $3 AND id > $4 AND next_attempt_ms < $1
                        """, [.integer(next.milliseconds), .text(claimed.message.target), .text(key), .integer(claimed.id)])
                }
                return true
            }
        }
    }

    /// Makes the first message waiting behind `claimed` (its target and ordering key) the head of
    /// its queue now that `claimed` is finished: due now if it was never attempted (it was
    /// enqueued due when `claimed` was: see ``enqueueOutbound(_:now:)``), at its retry otherwise.
    private func releaseFollowers(of claimed: OutboundDelivery, now: Instant) throws(StorageError) {
        guard let key = claimed.message.orderingKey else { return }
        try run(
            """
            UPDATE outbound_messages SET waiting = 0, next_attempt_ms = CASE WHEN attempts = 0 AND next_attempt_ms > $1 THEN $1 ELSE next_attempt_ms END
            WHERE id = (SELECT min(id) FROM outbound_messages WHERE state = 'pending' AND target = $2 AND ordering_key = $3 AND waiting = 1)
                AND NOT EXISTS (SELECT 1 FROM outbound_messages WHERE state = 'pending' AND target = $2 AND ordering_key = $3 AND waiting = 0)
            """, [.integer(now.milliseconds), .text(claimed.message.target), .text(key)])
    }

    /// Makes the first pending message of every queue (target and ordering key) that has no head
    /// its head, as ``releaseFollowers(of:now:)`` does for one: after parking or replaying many
    /// at once, and once a minute with the parking, so that no queue is left without one.
    private func releaseHeadlessQueues(now: Instant) throws(StorageError) {
        try run(
            """
            UPDATE outbound_messages SET waiting = 0, next_attempt_ms = CASE WHEN attempts = 0 AND next_attempt_ms > $1 THEN $1 ELSE next_attempt_ms END
            WHERE id IN (SELECT min(id) FROM outbound_messages WHERE state = 'pending' AND ordering_key IS NOT NULL
                GROUP BY target, ordering_key HAVING min(waiting) = 1)
            """, [.integer(now.milliseconds)])
    }

    public func replayOutbound(id: Int64, now: Instant) throws(StorageError) -> OutboundReplay {
        try inWrite { () throws(StorageError) -> OutboundReplay in
            guard
                let stored = try firstRow(
                    "SELECT \(OutboundColumns.delivery) FROM outbound_messages WHERE id = $1\(Self.dialect.lockingRead)", [.integer(id)],
                    { row throws(Row.Failure) in try row.outboundDelivery() })
            else { return .unknown }
            if stored.state == .pending { return .pending }
            // Behind the pending messages of its queue, if any: it waits for the one being sent.
            let waiting =
                try stored.message.orderingKey.map { key throws(StorageError) in
                    try firstRow(
                        "SELECT 1 FROM outbound_messages WHERE state = 'pending' AND target = $1 AND ordering_key = $2 LIMIT 1",
                        [.text(stored.message.target), .text(key)]
                    ) { _ in true } ?? false
                } ?? false
            try run("\(OutboundSQL.replay), waiting = $2 WHERE id = $3", [.integer(now.milliseconds), .integer(waiting ? 1 : 0), .integer(id)])
            var replayed = stored
            (replayed.state, replayed.attempts, replayed.enqueued, replayed.nextAttempt) = (.pending, 0, now, now)
            (replayed.finished, replayed.lastStatus, replayed.lastError) = (nil, nil, nil)
            return .replayed(replayed)
        }
    }

    public func replayFailedOutbound(now: Instant) throws(StorageError) -> Int {
        try inWrite { () throws(StorageError) -> Int in
            // Each waits in its queue; the queues left without a head get their first.
            let replayed = try run(
                "\(OutboundSQL.replay), waiting = CASE WHEN ordering_key IS NULL THEN 0 ELSE 1 END WHERE state = 'failed'", [.integer(now.milliseconds)])
            try releaseHeadlessQueues(now: now)
            return replayed
        }
    }

    @discardableResult
    public func parkOutbound(enqueuedBefore: Instant, now: Instant) throws(StorageError) -> Int {
        try inWrite { () throws(StorageError) -> Int in
            let parked = try run(
                """
                UPDATE outbound_messages SET state = 'failed', finished_ms = $1, last_error = $2, waiting = 0
                WHERE state = 'pending' AND enqueued_ms < $3
                """, [.integer(now.milliseconds), .text(OutboundSQL.notDeliveredWithinADay), .integer(enqueuedBefore.milliseconds)])
            try releaseHeadlessQueues(now: now)
            return parked
        }
    }

    @discardableResult
    public func pruneOutbound(finishedBefore: Instant) throws(StorageError) -> Int {
        try run(
            """
            DELETE FROM outbound_messages
            WHERE state <> 'pending' AND finished_ms < $1 AND id < (SELECT max(id) FROM outbound_messages)
            """, [.integer(finishedBefore.milliseconds)])
    }

    public func outboxBacklog() throws(StorageError) -> OutboxBacklog {
        let pending = try firstRow("SELECT count(*), min(enqueued_ms) FROM outbound_messages WHERE state = 'pending'", []) { row throws(Row.Failure) in
            (Int(try row.integer(0)), try row.optionalInteger(1).map(Instant.init(milliseconds:)))
        }
        let failed = try firstRow("SELECT count(*) FROM outbound_messages WHERE state = 'failed'", []) { row throws(Row.Failure) in Int(try row.integer(0)) }
        return OutboxBacklog(pending: pending?.0 ?? 0, failed: failed ?? 0, oldestPending: pending?.1)
    }
}

/// The statements of the outbox that more than one method runs.
enum OutboundSQL {
    /// The due messages first in line, at most $2: read only from the queues' heads
    /// (`outbound_messages_heads`), never by passing the messages waiting behind them.
    static let claimDue = """
        SELECT \(OutboundColumns.delivery) FROM outbound_messages
        WHERE state = 'pending' AND waiting = 0 AND next_attempt_ms <= $1
        ORDER BY next_attempt_ms, id LIMIT $2
        """

    /// The last error of a message ``StorePrimitives/parkOutbound(enqueuedBefore:now:)`` parks.
    static let notDeliveredWithinADay = "not delivered within a day"

    /// Makes messages pending again, due at $1 with their retry window starting then, attempts
    /// reset (the caller sets `waiting`).
    static let replay = """
        UPDATE outbound_messages SET state = 'pending', attempts = 0, enqueued_ms = $1, next_attempt_ms = $1, finished_ms = NULL,
            last_status = NULL, last_error = NULL
        """
}

/// The outbox's columns `StoreRow.outboundDelivery()` reads, in its order.
enum OutboundColumns {
    static let delivery = """
        id, kind, target, ordering_key, event_id, content_type, body, state, attempts, enqueued_ms, next_attempt_ms, finished_ms, \
        last_status, last_error
        """
    /// ``delivery`` with the body's size in place of the body, for listings.
    static let listed = """
        id, kind, target, ordering_key, event_id, content_type, length(body), state, attempts, enqueued_ms, next_attempt_ms, finished_ms, \
        last_status, last_error
        """
}

extension StoreRow {
    /// The outbox message whose columns a query selected as ``OutboundColumns/delivery`` lists
    /// them, or as ``OutboundColumns/listed`` does when `listed` (its body then empty, its size in
    /// ``OutboundDelivery/bodyBytes``).
    func outboundDelivery(listed: Bool = false) throws(Failure) -> OutboundDelivery {
        let kindText = try text(1)
        guard let kind = OutboundMessage.Kind(rawValue: kindText) else { throw unexpected(1, value: kindText, expected: "event or forward") }
        let stateText = try text(7)
        guard let state = OutboundDelivery.State(rawValue: stateText) else {
            throw unexpected(7, value: stateText, expected: "pending, delivered or failed")
        }
        let body = listed ? [] : try bytes(6)
        let message = OutboundMessage(kind: kind, target: try text(2), orderingKey: try optionalText(3), eventId: try text(4), contentType: try text(5), body: body)
        var delivery = OutboundDelivery(
            id: try integer(0), message: message, state: state, attempts: Int(try integer(8)), enqueued: Instant(milliseconds: try integer(9)),
            nextAttempt: Instant(milliseconds: try integer(10)), finished: try optionalInteger(11).map(Instant.init(milliseconds:)),
            lastStatus: try optionalInteger(12).map { Int($0) }, lastError: try optionalText(13))
        if listed { delivery.bodyBytes = Int(try integer(6)) }
        return delivery
    }
}
