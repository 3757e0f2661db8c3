public import Masthead

/// The last reported entitlements, once for every backend.
extension StorePrimitives {
    /// The outbox's lock for numbering (``StorePrimitives/lockForNumbering(_:)``), which every
    /// writer of the outbox takes: a lock per reader or per report row, taken job after job in
    /// a group commit, would deadlock two instances whose batches name the same readers in another
    /// order; and this one keeps a single lock order (the outbox, then the change log).
    public func lockReporting() throws(StorageError) {
        try lockForNumbering("outbound_messages")
    }

    public func reportedEntitlements(forUser userId: String) throws(StorageError) -> [ReportedEntitlement.Key: ReportedEntitlement]? {
        try inWrite { () throws(StorageError) -> [ReportedEntitlement.Key: ReportedEntitlement]? in
            guard try userExists(userId) else { return nil }
            let reported = try rows(
                "SELECT publication_id, environment, state, readable, sequence, due_ms FROM reported_entitlements WHERE user_id = $1", [.text(userId)]
            ) { row throws(Row.Failure) in
                (
                    ReportedEntitlement.Key(publicationId: try row.text(0), environment: try row.environment(1)),
                    ReportedEntitlement(
                        answer: .init(state: try row.subscriptionState(2), readable: Int(try row.integer(3))), sequence: try row.integer(4),
                        due: try row.optionalInstant(5))
                )
            }
            return Dictionary(reported, uniquingKeysWith: { first, _ in first })
        }
    }

    public func storeReportedEntitlement(_ reported: ReportedEntitlement, forUser userId: String, key: ReportedEntitlement.Key) throws(StorageError) {
        try run(
            """
            INSERT INTO reported_entitlements (user_id, publication_id, environment, state, readable, sequence, due_ms)
            VALUES ($1, $2, $3, $4, $5, $6, $7)
            ON CONFLICT (user_id, publication_id, environment)
            DO UPDATE SET state = excluded.state, readable = excluded.readable, sequence = excluded.sequence, due_ms = excluded.due_ms
            """,
            [
                .text(userId), .text(key.publicationId.text), .text(key.environment.rawValue), .text(reported.answer.state.rawValue),
                .integer(Int64(reported.answer.readable)), .integer(reported.sequence), .optional(reported.due?.milliseconds),
            ])
    }

    public func usersWithReportsDue(by now: Instant, limit: Int) throws(StorageError) -> [String] {
        try rows(
            "SELECT DISTINCT user_id FROM reported_entitlements WHERE due_ms <= $1 ORDER BY user_id LIMIT $2",
            [.integer(now.milliseconds), .integer(Int64(limit))]
        ) { row throws(Row.Failure) in try row.text(0) }
    }

    public func makeReportsDue(publicationId: String, by instant: Instant) throws(StorageError) {
        try run(
            "UPDATE reported_entitlements SET due_ms = $2 WHERE publication_id = $1 AND (due_ms IS NULL OR due_ms > $2)",
            [.text(publicationId), .integer(instant.milliseconds)])
    }
}

extension StoreRow {
    /// Column `index` as a subscription state (its raw name).
    fileprivate func subscriptionState(_ index: Int32) throws(Failure) -> SubscriptionState {
        let name = try text(index)
        guard let state = SubscriptionState(rawValue: name) else {
            throw unexpected(index, value: name, expected: "a state (\(SubscriptionState.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        return state
    }
}
