public import Masthead
import MastheadPostgreSQL

extension PostgreSQLStore {
    public func save(transactions: [Transaction], renewals: [RenewalInfo]) throws(StorageError) {
        try postgreSQL { () throws(PostgreSQLError) in
            // A new transaction is inserted as it is; `ON CONFLICT DO NOTHING` waits for another
            // instance inserting the same one to commit, then inserts nothing. A stored copy is then
            // read (and locked until the transaction ends) and merged with the new one as the
            // engine merges copies (R2.3, R2.8: `Transaction.merged(with:)`), then written whole:
            // two instances storing copies of one transaction at once both end in the merge.
            let insert = """
                INSERT INTO transactions (\(SQLiteStore.transactionColumns()))
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
                ON CONFLICT (environment, transaction_id) DO NOTHING
                """
            let stored = "SELECT \(SQLiteStore.transactionColumns()) FROM transactions WHERE environment = $1 AND transaction_id = $2 FOR UPDATE"
            let update = """
                UPDATE transactions SET original_transaction_id = $3, product_id = $4, purchase_ms = $5, expires_ms = $6,
                    cancellation_ms = $7, is_upgraded = $8, is_trial = $9, is_intro_offer = $10, offer = $11, signed_date_ms = $12,
                    unsigned_cancellation_ms = $13
                WHERE environment = $1 AND transaction_id = $2
                """
            for transaction in transactions {
                if try connection.run(insert, PostgreSQLStore.values(of: transaction)) == 1 { continue }
                let previous = try connection.firstRow(stored, [.text(transaction.environment.rawValue), .text(transaction.transactionId)]) {
                    row throws(PostgreSQLError) in try row.transaction()
                }
                let merged = previous.map { $0.merged(with: transaction) } ?? transaction
                if merged == previous { continue }
                try connection.run(update, PostgreSQLStore.values(of: merged))
            }
            // Renewal infos are kept as a history with their evidence instants, each distinct one
            // once (R2.7): `IS NOT DISTINCT FROM` compares the optional columns, NULL included.
            let renewal = """
                INSERT INTO renewal_history (environment, original_transaction_id, evidence_ms, product_id, auto_renew_product_id,
                    auto_renew_on, billing_retry, grace_expires_ms, expiration_intent)
                SELECT $1::text, $2::text, $3::bigint, $4::text, $5::text, $6::boolean, $7::boolean, $8::bigint, $9::text
                WHERE NOT EXISTS (SELECT 1 FROM renewal_history WHERE environment = $1 AND original_transaction_id = $2
                    AND evidence_ms IS NOT DISTINCT FROM $3 AND product_id IS NOT DISTINCT FROM $4
                    AND auto_renew_product_id IS NOT DISTINCT FROM $5 AND auto_renew_on IS NOT DISTINCT FROM $6
                    AND billing_retry = $7 AND grace_expires_ms IS NOT DISTINCT FROM $8 AND expiration_intent IS NOT DISTINCT FROM $9)
                """
            for info in RenewalResolution.resolve(renewals, transactions: transactions) {
                try connection.run(renewal, [
                    .text(info.environment.rawValue), .optional(info.originalTransactionId), .optional(info.evidence?.milliseconds),
                    .optional(info.productId), .optional(info.autoRenewProductId), .optional(info.autoRenewOn), .bool(info.isInBillingRetry),
                    .optional(info.gracePeriodExpires?.milliseconds), .optional(info.expirationIntent),
                ])
            }
        }
    }

    public func link(
        userId: String, transactions: [Transaction], latestReceipt: String?, restore: RestoreBehaviour, now: Instant
    ) throws(StorageError) -> [String] {
        let subscriptions = SubscriptionKey.sorted(of: transactions)
        try postgreSQL { () throws(PostgreSQLError) in
            try connection.run("INSERT INTO users (user_id, created_ms) VALUES ($1, $2) ON CONFLICT DO NOTHING", [.text(userId), .integer(now.milliseconds)])
        }
        var previousOwners: Set<ExactKey> = []
        for key in subscriptions {
            // A link not made yet is made here (another instance making the same one at once waits
            // for it, then finds it made); one made already is locked until the transaction ends,
            // so another instance's restore of it waits and then sees this one's outcome.
            let current = try postgreSQL { () throws(PostgreSQLError) -> String? in
                let claimed = try connection.run(
                    """
                    INSERT INTO subscriptions (environment, original_transaction_id, user_id, latest_receipt, linked_ms) VALUES ($1, $2, $3, $4, $5)
                    ON CONFLICT (environment, original_transaction_id) DO NOTHING
                    """,
                    [.text(key.environment.rawValue), .text(key.originalTransactionId), .text(userId), .optional(latestReceipt), .integer(now.milliseconds)])
                if claimed == 1 { return userId }
                return try connection.firstRow(
                    "SELECT user_id FROM subscriptions WHERE environment = $1 AND original_transaction_id = $2 FOR UPDATE",
                    [.text(key.environment.rawValue), .text(key.originalTransactionId)]
                ) { row throws(PostgreSQLError) in try row.text(0) }
            }
            // The same user only when the same bytes: a canonically equivalent spelling is another user.
            guard let current, !current.sameBytes(as: userId) else { continue }
            guard try restore.moves(isActive: { () throws(StorageError) in try isActive(key, now: now) }) else {
                throw .receiptAlreadyInUse(environment: key.environment.rawValue, originalTransactionId: key.originalTransactionId, userId: current)
            }
            previousOwners.insert(ExactKey(current))
        }
        try postgreSQL { () throws(PostgreSQLError) in
            let upsert = """
                INSERT INTO subscriptions (environment, original_transaction_id, user_id, latest_receipt, linked_ms) VALUES ($1, $2, $3, $4, $5)
                ON CONFLICT (environment, original_transaction_id) DO UPDATE SET
                    user_id = excluded.user_id, latest_receipt = coalesce(excluded.latest_receipt, subscriptions.latest_receipt),
                    linked_ms = excluded.linked_ms
                """
            for key in subscriptions {
                try connection.run(upsert, [
                    .text(key.environment.rawValue), .text(key.originalTransactionId), .text(userId), .optional(latestReceipt), .integer(now.milliseconds),
                ])
            }
        }
        return previousOwners.sorted().map(\.text)
    }

    /// A transaction's columns as parameters, in the order of `SQLiteStore.transactionColumns()`.
    static func values(of transaction: Transaction) -> [PostgreSQLValue] {
        [
            .text(transaction.environment.rawValue), .text(transaction.transactionId), .text(transaction.originalTransactionId),
            .text(transaction.productId), .integer(transaction.purchase.milliseconds), .optional(transaction.expires?.milliseconds),
            .optional(transaction.cancellation?.milliseconds), .bool(transaction.isUpgraded), .bool(transaction.isTrial),
            .bool(transaction.isIntroductoryOffer), .optional(transaction.offer?.rawValue), .optional(transaction.signedDate?.milliseconds),
            .optional(transaction.unsignedCancellation?.milliseconds),
        ]
    }

    /// Whether a transaction of the subscription covers `now` and was not refunded by then: its
    /// counted cancellation (`Transaction.countedCancellation`, R2.8) is none or later.
    private func isActive(_ key: SubscriptionKey, now: Instant) throws(StorageError) -> Bool {
        try postgreSQL { () throws(PostgreSQLError) in
            let query = """
                SELECT 1 FROM transactions WHERE environment = $1 AND original_transaction_id = $2 AND purchase_ms <= $3
                    AND (expires_ms IS NULL OR expires_ms > $3) AND (cancellation_ms IS NULL OR cancellation_ms > $3)
                    AND (unsigned_cancellation_ms IS NULL OR signed_date_ms IS NULL OR unsigned_cancellation_ms <= signed_date_ms
                        OR unsigned_cancellation_ms > $3)
                LIMIT 1
                """
            let values: [PostgreSQLValue] = [.text(key.environment.rawValue), .text(key.originalTransactionId), .integer(now.milliseconds)]
            return try connection.firstRow(query, values) { _ in true } ?? false
        }
    }

    public func recordLatestReceipt(_ receipt: String, environment: Environment, originalTransactionIds: [String]) throws(StorageError) {
        try postgreSQL { () throws(PostgreSQLError) in
            for original in Set(originalTransactionIds.map(ExactKey.init)).map(\.text) {
                try connection.run(
                    "UPDATE subscriptions SET latest_receipt = $1 WHERE environment = $2 AND original_transaction_id = $3",
                    [.text(receipt), .text(environment.rawValue), .text(original)])
                try connection.run(
                    """
                    INSERT INTO pending_receipts (environment, original_transaction_id, latest_receipt) VALUES ($1, $2, $3)
                    ON CONFLICT (environment, original_transaction_id) DO UPDATE SET latest_receipt = excluded.latest_receipt
                    """, [.text(environment.rawValue), .text(original), .text(receipt)])
            }
        }
    }

    /// A second delivery is recognised by the unique index on `notification_uuid` (`ON CONFLICT
    /// DO NOTHING`), so two instances receiving it together store it once.
    public func recordNotification(
        type: String, subtype: String?, uuid: String?, environment: Environment?, originalTransactionIds: [String], body: String,
        received: Instant
    ) throws(StorageError) -> Int64 {
        let id = try postgreSQL { () throws(PostgreSQLError) in
            try connection.firstRow(
                """
                INSERT INTO notifications (received_ms, notification_type, subtype, notification_uuid, environment, original_transaction_ids, body)
                VALUES ($1, $2, $3, $4, $5, $6, $7)
                ON CONFLICT (notification_uuid) WHERE notification_uuid IS NOT NULL DO NOTHING
                RETURNING id
                """,
                [
                    .integer(received.milliseconds), .text(type), .optional(subtype), .optional(uuid), .optional(environment?.rawValue),
                    .text(originalTransactionIds.joined(separator: ",")), .text(body),
                ]
            ) { row throws(PostgreSQLError) in try row.integer(0) }
        }
        guard let id else { throw .notificationAlreadyRecorded(uuid: uuid ?? "") }
        return id
    }

    public func upsertIssue(publicationId: String, issue: Issue) throws(StorageError) {
        try postgreSQL { () throws(PostgreSQLError) in
            try connection.run(
                """
                INSERT INTO issues (publication_id, issue_id, title, published_ms, free) VALUES ($1, $2, $3, $4, $5)
                ON CONFLICT (publication_id, issue_id) DO UPDATE SET title = excluded.title, published_ms = excluded.published_ms, free = excluded.free
                """, [.text(publicationId), .text(issue.id), .optional(issue.title), .integer(issue.published.milliseconds), .bool(issue.isFree)])
        }
    }
}
