public import Masthead

/// App account tokens and the subscriptions linked through them, once for every backend.
extension StorePrimitives {
    public func linkAppAccountToken(_ token: String, userId: String, now: Instant) throws(StorageError) -> AppAccountToken {
        guard let canonical = AppAccountToken.canonical(token) else { throw .invalidAppAccountToken(token) }
        if let existing = try appAccountToken(canonical) {
            guard existing.userId.sameBytes(as: userId) else { throw .appAccountTokenInUse(token: canonical, userId: existing.userId) }
            return existing
        }
        try run(WritingSQL.insertUser, [.text(userId), .integer(now.milliseconds)])
        try run("INSERT INTO app_account_tokens (token, user_id, linked_ms) VALUES ($1, $2, $3)", [.text(canonical), .text(userId), .integer(now.milliseconds)])
        // Subscriptions whose signed transactions carried the token before anyone owned it.
        try run(
            """
            INSERT INTO subscriptions (environment, original_transaction_id, user_id, latest_receipt, linked_ms)
            SELECT environment, original_transaction_id, $1, NULL, $2 FROM subscription_app_account_tokens WHERE token = $3
            ON CONFLICT (environment, original_transaction_id) DO NOTHING
            """, [.text(userId), .integer(now.milliseconds), .text(canonical)])
        return AppAccountToken(token: canonical, userId: userId, linked: now)
    }

    public func unlinkAppAccountToken(_ token: String, userId: String) throws(StorageError) -> AppAccountToken? {
        guard let canonical = AppAccountToken.canonical(token) else { throw .invalidAppAccountToken(token) }
        guard let existing = try appAccountToken(canonical), existing.userId.sameBytes(as: userId) else { return nil }
        try run("DELETE FROM app_account_tokens WHERE token = $1 AND user_id = $2", [.text(canonical), .text(userId)])
        return existing
    }

    public func linkSubscription(
        environment: Environment, originalTransactionId: String, appAccountToken: String?, now: Instant
    ) throws(StorageError) -> String? {
        let subscription: [Value] = [.text(environment.rawValue), .text(originalTransactionId)]
        if let linked = try firstRow(ReadingSQL.subscriptionOwner, subscription, { row throws(Row.Failure) in try row.text(0) }) { return linked }
        guard let token = appAccountToken.flatMap(AppAccountToken.canonical) else { return nil }
        let owner = try self.appAccountToken(token)?.userId
        try run(
            "INSERT INTO subscription_app_account_tokens (token, environment, original_transaction_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
            [.text(token)] + subscription)
        guard let owner else { return nil }
        try run(
            "INSERT INTO subscriptions (environment, original_transaction_id, user_id, latest_receipt, linked_ms) VALUES ($1, $2, $3, NULL, $4)",
            subscription + [.text(owner), .integer(now.milliseconds)])
        return owner
    }

    public func userId(forAppAccountToken token: String) throws(StorageError) -> String? {
        guard let canonical = AppAccountToken.canonical(token) else { return nil }
        return try appAccountToken(canonical)?.userId
    }

    public func appAccountTokens(forUser userId: String) throws(StorageError) -> [AppAccountToken] {
        try rows("SELECT token, user_id, linked_ms FROM app_account_tokens WHERE user_id = $1 ORDER BY linked_ms, token", [.text(userId)]) {
            row throws(Row.Failure) in try row.appAccountToken()
        }
    }

    /// The mapping of a token in canonical form, or nil.
    private func appAccountToken(_ canonical: String) throws(StorageError) -> AppAccountToken? {
        try firstRow("SELECT token, user_id, linked_ms FROM app_account_tokens WHERE token = $1", [.text(canonical)]) { row throws(Row.Failure) in
            try row.appAccountToken()
        }
    }
}
