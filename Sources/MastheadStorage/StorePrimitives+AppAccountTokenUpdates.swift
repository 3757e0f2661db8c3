public import Masthead

/// Set App Account Token calls owed to Apple, once for every backend: queued with the link that
/// owes them, claimed one at a time by a sender (another instance on the same database waits for
/// the claim and then finds it taken), and closed with their outcome.
extension StorePrimitives {
    public func queueAppAccountTokenUpdates(
        userId: String, subscriptions: [(environment: Environment, originalTransactionId: String)], now: Instant
    ) throws(StorageError) -> [(environment: Environment, originalTransactionId: String)] {
        guard !subscriptions.isEmpty,
            let token = try firstRow(
                "SELECT token FROM app_account_tokens WHERE user_id = $1 ORDER BY linked_ms, token LIMIT 1", [.text(userId)],
                { row throws(Row.Failure) in try row.text(0) })
        else { return [] }
        let carried = try prepare("SELECT 1 FROM subscription_app_account_tokens WHERE environment = $1 AND original_transaction_id = $2 LIMIT 1")
        let owner = try prepare(ReadingSQL.subscriptionOwner)
        let insert = try prepare(
            """
            INSERT INTO app_account_token_updates
                (environment, original_transaction_id, user_id, app_account_token, state, attempts, next_attempt_ms, queued_ms, last_error)
            VALUES ($1, $2, $3, $4, 'pending', 0, $5, $5, NULL)
            ON CONFLICT (environment, original_transaction_id) DO NOTHING
            """)
        var queued: [(environment: Environment, originalTransactionId: String)] = []
        for subscription in subscriptions {
            let key: [Value] = [.text(subscription.environment.rawValue), .text(subscription.originalTransactionId)]
            // Signed data of the subscription carried a token already: Apple has one for it.
            if try firstRow(carried, key, { row throws(Row.Failure) in try row.integer(0) }) != nil { continue }
            guard let linked = try firstRow(owner, key, { row throws(Row.Failure) in try row.text(0) }), linked.sameBytes(as: userId) else { continue }
            if try run(insert, key + [.text(userId), .text(token), .integer(now.milliseconds)]) == 1 { queued.append(subscription) }
        }
        return queued
    }

    public func claimAppAccountTokenUpdate(now: Instant, retryAfter: Instant) throws(StorageError) -> AppAccountTokenUpdate? {
        guard
            let due = try firstRow(
                """
                SELECT environment, original_transaction_id, user_id, app_account_token, attempts FROM app_account_token_updates
                WHERE state = 'pending' AND next_attempt_ms <= $1 ORDER BY next_attempt_ms, environment, original_transaction_id LIMIT 1
                """, [.integer(now.milliseconds)],
                { row throws(Row.Failure) in
                    AppAccountTokenUpdate(
                        environment: try row.environment(0), originalTransactionId: try row.text(1), userId: try row.text(2),
                        appAccountToken: try row.text(3), attempts: Int(try row.integer(4)))
                })
        else { return nil }
        // Taken only while still due: of two senders claiming it at once, the second finds it claimed.
        let claimed = try run(
            """
            UPDATE app_account_token_updates SET attempts = attempts + 1, next_attempt_ms = $1
            WHERE environment = $2 AND original_transaction_id = $3 AND state = 'pending' AND next_attempt_ms <= $4
            """, [.integer(retryAfter.milliseconds), .text(due.environment.rawValue), .text(due.originalTransactionId), .integer(now.milliseconds)])
        guard claimed == 1 else { return nil }
        var update = due
        update.attempts += 1
        return update
    }

    public func recordAppAccountTokenUpdate(
        environment: Environment, originalTransactionId: String, state: AppAccountTokenUpdate.State, nextAttempt: Instant?, lastError: String?
    ) throws(StorageError) {
        try run(
            """
            UPDATE app_account_token_updates SET state = $1, next_attempt_ms = COALESCE($2, next_attempt_ms), last_error = $3
            WHERE environment = $4 AND original_transaction_id = $5
            """, [.text(state.rawValue), .optional(nextAttempt?.milliseconds), .optional(lastError), .text(environment.rawValue), .text(originalTransactionId)])
    }

    public func appAccountTokenUpdates() throws(StorageError) -> [(update: AppAccountTokenUpdate, state: AppAccountTokenUpdate.State, lastError: String?)] {
        try rows(
            """
            SELECT environment, original_transaction_id, user_id, app_account_token, attempts, state, last_error FROM app_account_token_updates
            ORDER BY environment, original_transaction_id
            """, []
        ) { row throws(Row.Failure) in
            let update = AppAccountTokenUpdate(
                environment: try row.environment(0), originalTransactionId: try row.text(1), userId: try row.text(2), appAccountToken: try row.text(3),
                attempts: Int(try row.integer(4)))
            let text = try row.text(5)
            guard let state = AppAccountTokenUpdate.State(rawValue: text) else { throw row.unexpected(5, value: text, expected: "pending, sent or failed") }
            return (update, state, try row.optionalText(6))
        }
    }
}
