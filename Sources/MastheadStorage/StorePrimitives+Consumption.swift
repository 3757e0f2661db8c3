public import Masthead

/// Issues served, consent and pending consumption requests, once for every backend.
extension StorePrimitives {
    public func recordServedIssues(_ issues: [ServedIssue]) throws(StorageError) -> Int {
        guard !issues.isEmpty else { return 0 }
        let insert = try prepare(
            """
            INSERT INTO issues_served (user_id, publication_id, issue_id, first_served_ms) VALUES ($1, $2, $3, $4)
            ON CONFLICT (user_id, publication_id, issue_id) DO NOTHING
            """)
        return try inWrite { () throws(StorageError) -> Int in
            var inserted = 0
            for issue in issues {
                inserted += try run(insert, [.text(issue.userId), .text(issue.publicationId), .text(issue.issueId), .integer(issue.firstServed.milliseconds)])
            }
            return inserted
        }
    }

    public func servedIssues(forUser userId: String) throws(StorageError) -> [ServedIssue] {
        try rows(
            "SELECT user_id, publication_id, issue_id, first_served_ms FROM issues_served WHERE user_id = $1 ORDER BY publication_id, issue_id",
            [.text(userId)]
        ) { row throws(Row.Failure) in
            ServedIssue(userId: try row.text(0), publicationId: try row.text(1), issueId: try row.text(2), firstServed: try row.instant(3))
        }
    }

    public func setConsumptionConsent(userId: String, consented: Bool, now: Instant) throws(StorageError) -> ConsumptionConsent {
        try run(
            """
            INSERT INTO consumption_consents (user_id, consented, recorded_ms) VALUES ($1, $2, $3)
            ON CONFLICT (user_id) DO UPDATE SET consented = excluded.consented, recorded_ms = excluded.recorded_ms
            """, [.text(userId), .bool(consented), .integer(now.milliseconds)])
        return ConsumptionConsent(userId: userId, consented: consented, recorded: now)
    }

    public func consumptionConsent(forUser userId: String) throws(StorageError) -> ConsumptionConsent? {
        try firstRow("SELECT user_id, consented, recorded_ms FROM consumption_consents WHERE user_id = $1", [.text(userId)]) { row throws(Row.Failure) in
            ConsumptionConsent(userId: try row.text(0), consented: try row.bool(1), recorded: try row.instant(2))
        }
    }

    public func queueConsumptionRequest(_ request: PendingConsumptionRequest) throws(StorageError) -> Bool {
        try run(
            """
            INSERT INTO consumption_requests (environment, transaction_id, user_id, received_ms, deadline_ms, attempts, next_attempt_ms)
            VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (environment, transaction_id) DO NOTHING
            """,
            [
                .text(request.environment.rawValue), .text(request.transactionId), .text(request.userId), .integer(request.received.milliseconds),
                .integer(request.deadline.milliseconds), .integer(Int64(request.attempts)), .integer(request.nextAttempt.milliseconds),
            ]) == 1
    }

    public func dueConsumptionRequests(at now: Instant, limit: Int) throws(StorageError) -> [PendingConsumptionRequest] {
        try rows(
            """
            SELECT environment, transaction_id, user_id, received_ms, deadline_ms, attempts, next_attempt_ms FROM consumption_requests
            WHERE next_attempt_ms <= $1 ORDER BY next_attempt_ms, environment, transaction_id LIMIT $2
            """, [.integer(now.milliseconds), .integer(Int64(limit))]
        ) { row throws(Row.Failure) in
            PendingConsumptionRequest(
                environment: try row.environment(0), transactionId: try row.text(1), userId: try row.text(2), received: try row.instant(3),
                deadline: try row.instant(4), attempts: Int(try row.integer(5)), nextAttempt: try row.instant(6))
        }
    }

    public func claimConsumptionRequest(_ request: PendingConsumptionRequest, until: Instant) throws(StorageError) -> Bool {
        try run(
            """
            UPDATE consumption_requests SET next_attempt_ms = $1, attempts = attempts + 1
            WHERE environment = $2 AND transaction_id = $3 AND next_attempt_ms = $4
            """, [.integer(until.milliseconds), .text(request.environment.rawValue), .text(request.transactionId), .integer(request.nextAttempt.milliseconds)]
        ) == 1
    }

    public func rescheduleConsumptionRequest(environment: Environment, transactionId: String, nextAttempt: Instant) throws(StorageError) {
        try run(
            "UPDATE consumption_requests SET next_attempt_ms = $1 WHERE environment = $2 AND transaction_id = $3",
            [.integer(nextAttempt.milliseconds), .text(environment.rawValue), .text(transactionId)])
    }

    public func removeConsumptionRequest(environment: Environment, transactionId: String) throws(StorageError) {
        try run("DELETE FROM consumption_requests WHERE environment = $1 AND transaction_id = $2", [.text(environment.rawValue), .text(transactionId)])
    }

    public func consumptionRequestCount() throws(StorageError) -> Int {
        Int(try firstRow("SELECT count(*) FROM consumption_requests", []) { row throws(Row.Failure) in try row.integer(0) } ?? 0)
    }
}
