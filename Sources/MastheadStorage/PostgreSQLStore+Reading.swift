public import Masthead
import MastheadPostgreSQL

extension PostgreSQLStore {
    public func history(forUser userId: String) throws(StorageError) -> PurchaseHistory {
        try postgreSQL { () throws(PostgreSQLError) in
            let transactions = try connection.rows(
                """
                SELECT \(SQLiteStore.transactionColumns("t."))
                FROM subscriptions s JOIN transactions t ON t.environment = s.environment AND t.original_transaction_id = s.original_transaction_id
                WHERE s.user_id = $1
                ORDER BY t.environment, t.original_transaction_id, t.purchase_ms, t.transaction_id
                """, [.text(userId)]
            ) { row throws(PostgreSQLError) in try row.transaction() }
            let renewals = try connection.rows(
                """
                SELECT r.environment, r.original_transaction_id, r.product_id, r.auto_renew_product_id, r.auto_renew_on, r.billing_retry,
                    r.grace_expires_ms, r.expiration_intent, r.evidence_ms
                FROM subscriptions s JOIN renewal_history r ON r.environment = s.environment AND r.original_transaction_id = s.original_transaction_id
                WHERE s.user_id = $1
                ORDER BY r.environment, r.original_transaction_id, r.id
                """, [.text(userId)]
            ) { row throws(PostgreSQLError) in
                RenewalInfo(
                    environment: try row.environment(0), originalTransactionId: try row.text(1), productId: try row.optionalText(2),
                    autoRenewProductId: try row.optionalText(3), autoRenewOn: try row.optionalBool(4), isInBillingRetry: try row.bool(5),
                    gracePeriodExpires: try row.optionalInstant(6), expirationIntent: try row.optionalText(7), evidence: try row.optionalInstant(8))
            }
            return PurchaseHistory(transactions: transactions, renewals: renewals)
        }
    }

    /// Ids sort by the bytes of their UTF-8: the columns are in the `C` collation.
    public func userIds(after userId: String?, limit: Int) throws(StorageError) -> [String] {
        try postgreSQL { () throws(PostgreSQLError) in
            if let userId {
                return try connection.rows("SELECT user_id FROM users WHERE user_id > $1 ORDER BY user_id LIMIT $2", [.text(userId), .integer(Int64(limit))]) {
                    row throws(PostgreSQLError) in try row.text(0)
                }
            }
            return try connection.rows("SELECT user_id FROM users ORDER BY user_id LIMIT $1", [.integer(Int64(limit))]) { row throws(PostgreSQLError) in
                try row.text(0)
            }
        }
    }

    public func userCount() throws(StorageError) -> Int {
        try count("SELECT count(*) FROM users")
    }

    public func userExists(_ userId: String) throws(StorageError) -> Bool {
        try postgreSQL { () throws(PostgreSQLError) in
            try connection.firstRow("SELECT 1 FROM users WHERE user_id = $1", [.text(userId)]) { _ in true } ?? false
        }
    }

    public func users(linkedTo originalTransactionIds: [String], environment: Environment) throws(StorageError) -> [String] {
        try postgreSQL { () throws(PostgreSQLError) in
            var users: Set<ExactKey> = []
            for original in Set(originalTransactionIds.map(ExactKey.init)) {
                users.formUnion(
                    try connection.rows(
                        "SELECT user_id FROM subscriptions WHERE environment = $1 AND original_transaction_id = $2",
                        [.text(environment.rawValue), .text(original.text)]
                    ) { row throws(PostgreSQLError) in ExactKey(try row.text(0)) })
            }
            return users.sorted().map(\.text)
        }
    }

    public func publishedIssues() throws(StorageError) -> [(publicationId: String, issue: Issue)] {
        try postgreSQL { () throws(PostgreSQLError) in
            try connection.rows("SELECT publication_id, issue_id, title, published_ms, free FROM issues ORDER BY publication_id, published_ms, issue_id", []) {
                row throws(PostgreSQLError) in
                (try row.text(0), Issue(id: try row.text(1), title: try row.optionalText(2), published: try row.instant(3), isFree: try row.bool(4)))
            }
        }
    }

    public func refreshDue(from: Instant, to: Instant) throws(StorageError) -> [RefreshDue] {
        try postgreSQL { () throws(PostgreSQLError) in
            try connection.rows(
                """
                SELECT t.environment, t.original_transaction_id, s.user_id, max(t.expires_ms) AS expires,
                    coalesce(s.latest_receipt, p.latest_receipt) AS latest_receipt, count(t.signed_date_ms) > 0 AS signed
                FROM transactions t
                LEFT JOIN subscriptions s ON s.environment = t.environment AND s.original_transaction_id = t.original_transaction_id
                LEFT JOIN pending_receipts p ON p.environment = t.environment AND p.original_transaction_id = t.original_transaction_id
                WHERE t.expires_ms IS NOT NULL
                GROUP BY t.environment, t.original_transaction_id, s.user_id, s.latest_receipt, p.latest_receipt
                HAVING max(t.expires_ms) >= $1 AND max(t.expires_ms) < $2
                ORDER BY expires, t.original_transaction_id
                """, [.integer(from.milliseconds), .integer(to.milliseconds)]
            ) { row throws(PostgreSQLError) in
                RefreshDue(
                    environment: try row.environment(0), originalTransactionId: try row.text(1), userId: try row.optionalText(2),
                    expires: try row.instant(3), latestReceipt: try row.optionalText(4), signed: try row.bool(5))
            }
        }
    }

    /// How many notifications are stored.
    public func notificationCount() throws(StorageError) -> Int {
        try count("SELECT count(*) FROM notifications")
    }

    /// The single integer `sql` counts.
    private func count(_ sql: String) throws(StorageError) -> Int {
        try postgreSQL { () throws(PostgreSQLError) in Int(try connection.singleRow(sql, []) { row throws(PostgreSQLError) in try row.integer(0) }) }
    }
}
