public import Masthead

/// Reading histories, users, issues and the subscriptions due for a refresh, once for every backend.
extension StorePrimitives {
    /// The user's history from their `user_histories` row, in one indexed read: the history
    /// ``historyFromTables(forUser:)`` read when the last write that changed it committed (every
    /// such write stores it again, in its own transaction: ``recordChanges(_:origin:)``). A user
    /// without a row (none written since the schema had the table, or never seen), or whose row
    /// is of another format version, has theirs read from the tables, as does every user of a
    /// database without the table (a read-only store on an earlier schema). A row that is not a
    /// whole history throws ``StorageError/storedHistory(userId:problem:)``.
    public func history(forUser userId: String) throws(StorageError) -> PurchaseHistory {
        if storesHistories, let bytes = try storedHistoryBytes(forUser: userId), let history = try StoredHistory.history(bytes, userId: userId) {
            return history
        }
        return try historyFromTables(forUser: userId)
    }

    /// The user's row in `users` with their `user_histories` row's history: no row for a user
    /// never seen, a NULL history for one without a stored history. The database without the table
    /// answers ``KnownUserHistory/notStored`` without a statement.
    public func knownUserHistory(_ userId: String) throws(StorageError) -> KnownUserHistory {
        guard storesHistories else { return .notStored }
        guard let row = try firstRow(StoredHistorySQL.readKnown, [.text(userId)], { row throws(Row.Failure) in try row.optionalBytes(0) }) else {
            return .unknownUser
        }
        guard let bytes = row, let history = try StoredHistory.history(bytes, userId: userId) else { return .notStored }
        return .stored(history)
    }

    /// The bytes of the user's `user_histories` row, nil without one.
    public func storedHistoryBytes(forUser userId: String) throws(StorageError) -> [UInt8]? {
        try firstRow(StoredHistorySQL.read, [.text(userId)]) { row throws(Row.Failure) in try row.bytes(0) }
    }

    /// The user's history read from the tables it is stored in.
    ///
    /// The user's grants come with their transactions (R17), and the orders of their Google Play
    /// purchases as transactions after the App Store's (R18). Transactions come by subscription, then purchase and id, and renewal infos by
    /// subscription in the order they were stored, where the dialect sorts histories
    /// (``SQLDialect``); in the order of SQLite's indexes otherwise. The grants of the user's
    /// licence memberships are derived from them (``LicenceMembership/grant(of:)``) and come after
    /// the stored ones.
    public func historyFromTables(forUser userId: String) throws(StorageError) -> PurchaseHistory {
        let user: [Value] = [.text(userId)]
        let transactions =
            try rows(Self.dialect.statements.userTransactions, user) { row throws(Row.Failure) in try row.transaction() }
            + googlePlayTransactions(forUser: userId)
        let renewals = try rows(Self.dialect.statements.userRenewals, user) { row throws(Row.Failure) in try row.renewal() }
        let grants = try rows(GrantSQL.userGrants, user) { row throws(Row.Failure) in try row.grant() } + licenceGrants(forUser: userId)
        return PurchaseHistory(transactions: transactions, renewals: renewals, grants: grants)
    }

    public func history(environment: Environment, originalTransactionId: String) throws(StorageError) -> PurchaseHistory {
        let key: [Value] = [.text(environment.rawValue), .text(originalTransactionId)]
        let transactions = try rows(Self.dialect.statements.subscriptionTransactions, key) { row throws(Row.Failure) in try row.transaction() }
        let renewals = try rows(Self.dialect.statements.subscriptionRenewals, key) { row throws(Row.Failure) in try row.renewal() }
        return PurchaseHistory(transactions: transactions, renewals: renewals)
    }

    /// Ids sort by the bytes of their UTF-8 (PostgreSQL's columns are in the `C` collation).
    public func userIds(after userId: String?, limit: Int) throws(StorageError) -> [String] {
        guard let userId else {
            return try rows("SELECT user_id FROM users ORDER BY user_id LIMIT $1", [.integer(Int64(limit))]) { row throws(Row.Failure) in try row.text(0) }
        }
        return try rows("SELECT user_id FROM users WHERE user_id > $1 ORDER BY user_id LIMIT $2", [.text(userId), .integer(Int64(limit))]) {
            row throws(Row.Failure) in try row.text(0)
        }
    }

    public func userCount() throws(StorageError) -> Int {
        try count("SELECT count(*) FROM users")
    }

    public func userExists(_ userId: String) throws(StorageError) -> Bool {
        try firstRow("SELECT 1 FROM users WHERE user_id = $1", [.text(userId)]) { _ in true } ?? false
    }

    public func users(linkedTo originalTransactionIds: [String], environment: Environment) throws(StorageError) -> [String] {
        let owner = try prepare(ReadingSQL.subscriptionOwner)
        var users: Set<ExactKey> = []
        for original in Set(originalTransactionIds.map(ExactKey.init)) {
            users.formUnion(
                try rows(owner, [.text(environment.rawValue), .text(original.text)]) { row throws(Row.Failure) in
                    ExactKey(try row.text(0))
                })
        }
        return users.sorted().map(\.text)
    }

    public func publishedIssues() throws(StorageError) -> [(publicationId: String, issue: Issue)] {
        try rows("SELECT publication_id, issue_id, title, published_ms, free FROM issues ORDER BY publication_id, published_ms, issue_id", []) {
            row throws(Row.Failure) in
            (try row.text(0), Issue(id: try row.text(1), title: try row.optionalText(2), published: try row.instant(3), isFree: try row.bool(4)))
        }
    }

    public func refreshDue(from: Instant, to: Instant) throws(StorageError) -> [RefreshDue] {
        try rows(ReadingSQL.refreshDue, [.integer(from.milliseconds), .integer(to.milliseconds)]) { row throws(Row.Failure) in
            RefreshDue(
                environment: try row.environment(0), originalTransactionId: try row.text(1), userId: try row.optionalText(2),
                expires: try row.instant(3), latestReceipt: try row.optionalText(4), signed: try row.bool(5))
        }
    }

    /// The subscriptions `masthead migrate` moves from receipts to signed data.
    public func receiptOnlySubscriptions() throws(StorageError) -> [ReceiptOnlySubscription] {
        try rows(ReadingSQL.receiptOnly, []) { row throws(Row.Failure) in
            ReceiptOnlySubscription(environment: try row.environment(0), originalTransactionId: try row.text(1), userId: try row.optionalText(2))
        }
    }

    /// How many notifications are stored.
    public func notificationCount() throws(StorageError) -> Int {
        try count("SELECT count(*) FROM notifications")
    }

    /// The single integer `sql` counts.
    func count(_ sql: String) throws(StorageError) -> Int {
        Int(try firstRow(sql, []) { row throws(Row.Failure) in try row.integer(0) } ?? 0)
    }
}

/// The statements of a user's stored history, the same in every dialect.
enum StoredHistorySQL {
    static let read = "SELECT history FROM user_histories WHERE user_id = $1"
    /// One row for a known user, its history NULL when they have no row of `user_histories`.
    static let readKnown = "SELECT (SELECT history FROM user_histories WHERE user_id = $1) FROM users WHERE user_id = $1"
    static let write = """
        INSERT INTO user_histories (user_id, history) VALUES ($1, $2)
        ON CONFLICT (user_id) DO UPDATE SET history = excluded.history
        """
}

/// The statements of reading, the same in every dialect.
enum ReadingSQL {
    static let subscriptionOwner = "SELECT user_id FROM subscriptions WHERE environment = $1 AND original_transaction_id = $2"
    static let refreshDue = """
        SELECT t.environment, t.original_transaction_id, s.user_id, max(t.expires_ms) AS expires,
            coalesce(s.latest_receipt, p.latest_receipt) AS latest_receipt, count(t.signed_date_ms) > 0 AS signed
        FROM transactions t
        LEFT JOIN subscriptions s ON s.environment = t.environment AND s.original_transaction_id = t.original_transaction_id
        LEFT JOIN pending_receipts p ON p.environment = t.environment AND p.original_transaction_id = t.original_transaction_id
        WHERE t.expires_ms IS NOT NULL
        GROUP BY t.environment, t.original_transaction_id, s.user_id, s.latest_receipt, p.latest_receipt
        HAVING max(t.expires_ms) >= $1 AND max(t.expires_ms) < $2
        ORDER BY expires, t.original_transaction_id
        """
    static let receiptOnly = """
        SELECT t.environment, t.original_transaction_id, s.user_id
        FROM transactions t
        LEFT JOIN subscriptions s ON s.environment = t.environment AND s.original_transaction_id = t.original_transaction_id
        GROUP BY t.environment, t.original_transaction_id, s.user_id
        HAVING count(t.signed_date_ms) = 0
        ORDER BY t.environment, t.original_transaction_id
        """
}
