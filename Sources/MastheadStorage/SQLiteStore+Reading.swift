public import Masthead
import MastheadSQLite

extension SQLiteStore {
    public func history(forUser userId: String) throws(StorageError) -> PurchaseHistory {
        try sqlite { () throws(SQLiteError) in
            let query = try statement("""
                SELECT \(SQLiteStore.transactionColumns("t."))
                FROM subscriptions s JOIN transactions t ON t.environment = s.environment AND t.original_transaction_id = s.original_transaction_id
                WHERE s.user_id = ?
                """)
            let transactions = try query.rows([.text(userId)]) { row throws(SQLiteError) in try row.transaction() }
            let renewalsQuery = try statement("""
                SELECT r.environment, r.original_transaction_id, r.product_id, r.auto_renew_product_id, r.auto_renew_on, r.billing_retry,
                    r.grace_expires_ms, r.expiration_intent, r.evidence_ms
                FROM subscriptions s JOIN renewal_history r ON r.environment = s.environment AND r.original_transaction_id = s.original_transaction_id
                WHERE s.user_id = ?
                """)
            let renewals = try renewalsQuery.rows([.text(userId)]) { row throws(SQLiteError) in
                RenewalInfo(
                    environment: try row.environment(0), originalTransactionId: try row.text(1), productId: try row.optionalText(2),
                    autoRenewProductId: try row.optionalText(3), autoRenewOn: try row.optionalBool(4), isInBillingRetry: try row.bool(5),
                    gracePeriodExpires: try row.optionalInstant(6), expirationIntent: try row.optionalText(7), evidence: try row.optionalInstant(8))
            }
            return PurchaseHistory(transactions: transactions, renewals: renewals)
        }
    }

    public func userIds(after userId: String?, limit: Int) throws(StorageError) -> [String] {
        try sqlite { () throws(SQLiteError) in
            try statement("SELECT user_id FROM users WHERE ?1 IS NULL OR user_id > ?1 ORDER BY user_id LIMIT ?2")
                .rows([.optional(userId), .integer(Int64(limit))]) { row throws(SQLiteError) in try row.text(0) }
        }
    }

    public func userCount() throws(StorageError) -> Int {
        try count("SELECT count(*) FROM users")
    }

    public func userExists(_ userId: String) throws(StorageError) -> Bool {
        try sqlite { () throws(SQLiteError) in
            try statement("SELECT 1 FROM users WHERE user_id = ?").firstRow([.text(userId)]) { _ in true } ?? false
        }
    }

    public func users(linkedTo originalTransactionIds: [String], environment: Environment) throws(StorageError) -> [String] {
        try sqlite { () throws(SQLiteError) in
            let query = try statement("SELECT user_id FROM subscriptions WHERE environment = ? AND original_transaction_id = ?")
            var users: Set<ExactKey> = []
            for original in Set(originalTransactionIds.map(ExactKey.init)) {
                users.formUnion(
                    try query.rows([.text(environment.rawValue), .text(original.text)]) { row throws(SQLiteError) in ExactKey(try row.text(0)) })
            }
            return users.sorted().map(\.text)
        }
    }

    public func publishedIssues() throws(StorageError) -> [(publicationId: String, issue: Issue)] {
        try sqlite { () throws(SQLiteError) in
            let query = try statement("SELECT publication_id, issue_id, title, published_ms, free FROM issues ORDER BY publication_id, published_ms, issue_id")
            return try query.rows([]) { row throws(SQLiteError) in
                (try row.text(0), Issue(id: try row.text(1), title: try row.optionalText(2), published: try row.instant(3), isFree: try row.bool(4)))
            }
        }
    }

    public func refreshDue(from: Instant, to: Instant) throws(StorageError) -> [RefreshDue] {
        try sqlite { () throws(SQLiteError) in
            let query = try statement("""
                SELECT t.environment, t.original_transaction_id, s.user_id, max(t.expires_ms) AS expires,
                    coalesce(s.latest_receipt, p.latest_receipt) AS latest_receipt, max(t.signed_date_ms IS NOT NULL) AS signed
                FROM transactions t
                LEFT JOIN subscriptions s ON s.environment = t.environment AND s.original_transaction_id = t.original_transaction_id
                LEFT JOIN pending_receipts p ON p.environment = t.environment AND p.original_transaction_id = t.original_transaction_id
                WHERE t.expires_ms IS NOT NULL
                GROUP BY t.environment, t.original_transaction_id
                HAVING expires >= ? AND expires < ?
                ORDER BY expires, t.original_transaction_id
                """)
            return try query.rows([.integer(from.milliseconds), .integer(to.milliseconds)]) { row throws(SQLiteError) in
                RefreshDue(
                    environment: try row.environment(0), originalTransactionId: try row.text(1), userId: try row.optionalText(2),
                    expires: try row.instant(3), latestReceipt: try row.optionalText(4), signed: try row.integer(5) != 0)
            }
        }
    }

    /// The transactions table's columns `Row.transaction()` reads, in its order, each prefixed
    /// with `table` (`"t."`, or nothing).
    static func transactionColumns(_ table: String = "") -> String {
        [
            "environment", "transaction_id", "original_transaction_id", "product_id", "purchase_ms", "expires_ms", "cancellation_ms",
            "is_upgraded", "is_trial", "is_intro_offer", "offer", "signed_date_ms", "unsigned_cancellation_ms",
        ].map { table + $0 }.joined(separator: ", ")
    }

    /// How many notifications are stored.
    public func notificationCount() throws(StorageError) -> Int {
        try count("SELECT count(*) FROM notifications")
    }

    /// The single integer `sql` counts.
    private func count(_ sql: String) throws(StorageError) -> Int {
        try sqlite { () throws(SQLiteError) in Int(try statement(sql).singleRow([]) { row throws(SQLiteError) in try row.integer(0) }) }
    }
}
