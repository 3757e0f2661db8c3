public import Masthead
import MastheadSQLite

extension SQLiteStore {
    public func linkAppAccountToken(_ token: String, userId: String, now: Instant) throws(StorageError) -> AppAccountToken {
        guard let canonical = AppAccountToken.canonical(token) else { throw .invalidAppAccountToken(token) }
        if let existing = try appAccountToken(canonical) {
            guard existing.userId.sameBytes(as: userId) else { throw .appAccountTokenInUse(token: canonical, userId: existing.userId) }
            return existing
        }
        return try sqlite { () throws(SQLiteError) in
            try statement("INSERT INTO users (user_id, created_ms) VALUES (?, ?) ON CONFLICT DO NOTHING").run([.text(userId), .integer(now.milliseconds)])
            try statement("INSERT INTO app_account_tokens (token, user_id, linked_ms) VALUES (?, ?, ?)")
                .run([.text(canonical), .text(userId), .integer(now.milliseconds)])
            // Subscriptions whose signed transactions carried the token before anyone owned it.
            try statement("""
                INSERT INTO subscriptions (environment, original_transaction_id, user_id, latest_receipt, linked_ms)
                SELECT environment, original_transaction_id, ?1, NULL, ?2 FROM subscription_app_account_tokens WHERE token = ?3
                ON CONFLICT (environment, original_transaction_id) DO NOTHING
                """).run([.text(userId), .integer(now.milliseconds), .text(canonical)])
            return AppAccountToken(token: canonical, userId: userId, linked: now)
        }
    }

    public func unlinkAppAccountToken(_ token: String, userId: String) throws(StorageError) -> AppAccountToken? {
        guard let canonical = AppAccountToken.canonical(token) else { throw .invalidAppAccountToken(token) }
        guard let existing = try appAccountToken(canonical), existing.userId.sameBytes(as: userId) else { return nil }
        try sqlite { () throws(SQLiteError) in
            try statement("DELETE FROM app_account_tokens WHERE token = ? AND user_id = ?").run([.text(canonical), .text(userId)])
        }
        return existing
    }

    public func linkSubscription(
        environment: Environment, originalTransactionId: String, appAccountToken: String?, now: Instant
    ) throws(StorageError) -> String? {
        let linked = try sqlite { () throws(SQLiteError) in
            try statement("SELECT user_id FROM subscriptions WHERE environment = ? AND original_transaction_id = ?")
                .firstRow([.text(environment.rawValue), .text(originalTransactionId)]) { row throws(SQLiteError) in try row.text(0) }
        }
        if let linked { return linked }
        guard let token = appAccountToken.flatMap(AppAccountToken.canonical) else { return nil }
        let owner = try self.appAccountToken(token)?.userId
        try sqlite { () throws(SQLiteError) in
            try statement("""
                INSERT INTO subscription_app_account_tokens (token, environment, original_transaction_id) VALUES (?, ?, ?)
                ON CONFLICT DO NOTHING
                """).run([.text(token), .text(environment.rawValue), .text(originalTransactionId)])
            guard let owner else { return }
            try statement("INSERT INTO subscriptions (environment, original_transaction_id, user_id, latest_receipt, linked_ms) VALUES (?, ?, ?, NULL, ?)")
                .run([.text(environment.rawValue), .text(originalTransactionId), .text(owner), .integer(now.milliseconds)])
        }
        return owner
    }

    public func userId(forAppAccountToken token: String) throws(StorageError) -> String? {
        guard let canonical = AppAccountToken.canonical(token) else { return nil }
        return try appAccountToken(canonical)?.userId
    }

    public func appAccountTokens(forUser userId: String) throws(StorageError) -> [AppAccountToken] {
        try sqlite { () throws(SQLiteError) in
            try statement("SELECT token, user_id, linked_ms FROM app_account_tokens WHERE user_id = ? ORDER BY linked_ms, token")
                .rows([.text(userId)]) { row throws(SQLiteError) in
                    AppAccountToken(token: try row.text(0), userId: try row.text(1), linked: try row.instant(2))
                }
        }
    }

    /// The mapping of a token in canonical form, or nil.
    private func appAccountToken(_ canonical: String) throws(StorageError) -> AppAccountToken? {
        try sqlite { () throws(SQLiteError) in
            try statement("SELECT token, user_id, linked_ms FROM app_account_tokens WHERE token = ?").firstRow([.text(canonical)]) { row throws(SQLiteError) in
                AppAccountToken(token: try row.text(0), userId: try row.text(1), linked: try row.instant(2))
            }
        }
    }
}
