public import Masthead
import MastheadSQLite

extension SQLiteStore {
    public func save(transactions: [Transaction], renewals: [RenewalInfo]) throws(StorageError) {
        try sqlite { () throws(SQLiteError) in
            // The stored copy is read and merged with the new one as the engine merges copies
            // (R2.3, R2.8: `Transaction.merged(with:)`), then written whole.
            let stored = try statement("SELECT \(SQLiteStore.transactionColumns()) FROM transactions WHERE environment = ? AND transaction_id = ?")
            let upsert = try statement("""
                INSERT INTO transactions (\(SQLiteStore.transactionColumns()))
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (environment, transaction_id) DO UPDATE SET
                    original_transaction_id = excluded.original_transaction_id, product_id = excluded.product_id,
                    purchase_ms = excluded.purchase_ms, expires_ms = excluded.expires_ms, cancellation_ms = excluded.cancellation_ms,
                    is_upgraded = excluded.is_upgraded, is_trial = excluded.is_trial, is_intro_offer = excluded.is_intro_offer,
                    offer = excluded.offer, signed_date_ms = excluded.signed_date_ms, unsigned_cancellation_ms = excluded.unsigned_cancellation_ms
                """)
            for transaction in transactions {
                let previous = try stored.firstRow([.text(transaction.environment.rawValue), .text(transaction.transactionId)]) {
                    row throws(SQLiteError) in try row.transaction()
                }
                let merged = previous.map { $0.merged(with: transaction) } ?? transaction
                if merged == previous { continue }
                try upsert.run([
                    .text(merged.environment.rawValue), .text(merged.transactionId), .text(merged.originalTransactionId),
                    .text(merged.productId), .integer(merged.purchase.milliseconds), .optional(merged.expires?.milliseconds),
                    .optional(merged.cancellation?.milliseconds), .bool(merged.isUpgraded), .bool(merged.isTrial),
                    .bool(merged.isIntroductoryOffer), .optional(merged.offer?.rawValue), .optional(merged.signedDate?.milliseconds),
                    .optional(merged.unsignedCancellation?.milliseconds),
                ])
            }
            // Renewal infos are kept as a history with their evidence instants, each distinct one
            // once (R2.7): `IS` compares the optional columns, NULL included.
            let renewal = try statement("""
                INSERT INTO renewal_history (environment, original_transaction_id, evidence_ms, product_id, auto_renew_product_id,
                    auto_renew_on, billing_retry, grace_expires_ms, expiration_intent)
                SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9
                WHERE NOT EXISTS (SELECT 1 FROM renewal_history WHERE environment = ?1 AND original_transaction_id = ?2
                    AND evidence_ms IS ?3 AND product_id IS ?4 AND auto_renew_product_id IS ?5 AND auto_renew_on IS ?6
                    AND billing_retry = ?7 AND grace_expires_ms IS ?8 AND expiration_intent IS ?9)
                """)
            for info in RenewalResolution.resolve(renewals, transactions: transactions) {
                try renewal.run([
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
        let owner = try sqlite { () throws(SQLiteError) in
            try statement("INSERT INTO users (user_id, created_ms) VALUES (?, ?) ON CONFLICT DO NOTHING").run([.text(userId), .integer(now.milliseconds)])
            return try statement("SELECT user_id FROM subscriptions WHERE environment = ? AND original_transaction_id = ?")
        }
        var previousOwners: Set<ExactKey> = []
        for key in subscriptions {
            let current = try sqlite { () throws(SQLiteError) in
                try owner.firstRow([.text(key.environment.rawValue), .text(key.originalTransactionId)]) { row throws(SQLiteError) in try row.text(0) }
            }
            // The same user only when the same bytes: a canonically equivalent spelling is another user.
            guard let current, !current.sameBytes(as: userId) else { continue }
            guard try restore.moves(isActive: { () throws(StorageError) in try isActive(key, now: now) }) else {
                throw .receiptAlreadyInUse(environment: key.environment.rawValue, originalTransactionId: key.originalTransactionId, userId: current)
            }
            previousOwners.insert(ExactKey(current))
        }
        try sqlite { () throws(SQLiteError) in
            let upsert = try statement("""
                INSERT INTO subscriptions (environment, original_transaction_id, user_id, latest_receipt, linked_ms) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (environment, original_transaction_id) DO UPDATE SET
                    user_id = excluded.user_id, latest_receipt = coalesce(excluded.latest_receipt, latest_receipt), linked_ms = excluded.linked_ms
                """)
            for key in subscriptions {
                try upsert.run([.text(key.environment.rawValue), .text(key.originalTransactionId), .text(userId), .optional(latestReceipt), .integer(now.milliseconds)])
            }
        }
        return previousOwners.sorted().map(\.text)
    }

    /// Whether a transaction of the subscription covers `now` and was not refunded by then: its
    /// counted cancellation (`Transaction.countedCancellation`, R2.8) is none or later.
    private func isActive(_ key: SubscriptionKey, now: Instant) throws(StorageError) -> Bool {
        try sqlite { () throws(SQLiteError) in
            let query = try statement("""
                SELECT 1 FROM transactions WHERE environment = ?1 AND original_transaction_id = ?2 AND purchase_ms <= ?3
                    AND (expires_ms IS NULL OR expires_ms > ?3) AND (cancellation_ms IS NULL OR cancellation_ms > ?3)
                    AND (unsigned_cancellation_ms IS NULL OR signed_date_ms IS NULL OR unsigned_cancellation_ms <= signed_date_ms
                        OR unsigned_cancellation_ms > ?3)
                LIMIT 1
                """)
            let values: [SQLValue] = [.text(key.environment.rawValue), .text(key.originalTransactionId), .integer(now.milliseconds)]
            return try query.firstRow(values) { _ in true } ?? false
        }
    }

    public func recordLatestReceipt(_ receipt: String, environment: Environment, originalTransactionIds: [String]) throws(StorageError) {
        try sqlite { () throws(SQLiteError) in
            let update = try statement("UPDATE subscriptions SET latest_receipt = ? WHERE environment = ? AND original_transaction_id = ?")
            let originals = Set(originalTransactionIds.map(ExactKey.init))
            for original in originals { try update.run([.text(receipt), .text(environment.rawValue), .text(original.text)]) }
            let pending = try statement("""
                INSERT INTO pending_receipts (environment, original_transaction_id, latest_receipt) VALUES (?, ?, ?)
                ON CONFLICT (environment, original_transaction_id) DO UPDATE SET latest_receipt = excluded.latest_receipt
                """)
            for original in originals { try pending.run([.text(environment.rawValue), .text(original.text), .text(receipt)]) }
        }
    }

    public func recordNotification(
        type: String, subtype: String?, uuid: String?, environment: Environment?, originalTransactionIds: [String], body: String,
        received: Instant
    ) throws(StorageError) -> Int64 {
        if let uuid, try hasNotification(uuid: uuid) { throw .notificationAlreadyRecorded(uuid: uuid) }
        return try sqlite { () throws(SQLiteError) in
            try statement("""
                INSERT INTO notifications (received_ms, notification_type, subtype, notification_uuid, environment, original_transaction_ids, body)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """).run([
                    .integer(received.milliseconds), .text(type), .optional(subtype), .optional(uuid), .optional(environment?.rawValue),
                    .text(originalTransactionIds.joined(separator: ",")), .text(body),
                ])
            return database.lastInsertRowID
        }
    }

    public func upsertIssue(publicationId: String, issue: Issue) throws(StorageError) {
        try sqlite { () throws(SQLiteError) in
            try statement("""
                INSERT INTO issues (publication_id, issue_id, title, published_ms, free) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (publication_id, issue_id) DO UPDATE SET title = excluded.title, published_ms = excluded.published_ms, free = excluded.free
                """).run([.text(publicationId), .text(issue.id), .optional(issue.title), .integer(issue.published.milliseconds), .bool(issue.isFree)])
        }
    }
}
