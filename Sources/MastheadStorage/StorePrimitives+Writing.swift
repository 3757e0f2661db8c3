public import Masthead

/// Storing transactions and renewal infos, linking subscriptions to users, receipts and issues,
/// once for every backend.
extension StorePrimitives {
    /// A stored copy is read (and locked until the transaction ends where writers run
    /// concurrently), merged with the new one as the engine merges copies (R2.3, R2.8:
    /// `Transaction.merged(with:)`) and written whole. A transaction not stored yet is inserted as
    /// it is; `ON CONFLICT DO NOTHING` waits for another connection inserting the same one to
    /// commit, and the new copy is then merged with that one's: two copies stored at once end as
    /// their merge. While the transactions met are new, each is inserted before any read (one
    /// statement each, as an import of new users meets them); once one was stored, the next are
    /// read first (as the same users stored again meet them). Either order stores the same rows.
    public func save(transactions: [Transaction], renewals: [RenewalInfo]) throws(StorageError) {
        let stored = try prepare(Self.dialect.statements.storedTransaction)
        let insert = try prepare(WritingSQL.insertTransaction)
        let update = try prepare(WritingSQL.updateTransaction)
        var insertFirst = true
        for transaction in transactions {
            let key: [Value] = [.text(transaction.environment.rawValue), .text(transaction.transactionId)]
            var previous = insertFirst ? nil : try firstRow(stored, key) { row throws(Row.Failure) in try row.transaction() }
            if previous == nil {
                if try run(insert, Self.values(of: transaction)) == 1 {
                    insertFirst = true
                    continue
                }
                previous = try firstRow(stored, key) { row throws(Row.Failure) in try row.transaction() }
            }
            insertFirst = false
            let merged = previous.map { $0.merged(with: transaction) } ?? transaction
            if merged == previous { continue }
            try run(update, Self.values(of: merged))
        }
        // Renewal infos are kept as a history with their evidence instants, each distinct one
        // once (R2.7): the optional columns compare NULL as equal to NULL.
        let insertRenewal = try prepare(Self.dialect.statements.insertRenewal)
        for info in RenewalResolution.resolve(renewals, transactions: transactions) {
            try run(insertRenewal, [
                .text(info.environment.rawValue), .optional(info.originalTransactionId), .optional(info.evidence?.milliseconds),
                .optional(info.productId), .optional(info.autoRenewProductId), .optional(info.autoRenewOn), .bool(info.isInBillingRetry),
                .optional(info.gracePeriodExpires?.milliseconds), .optional(info.expirationIntent), .optional(info.terms.map(StoredTerms.text)),
            ])
        }
    }

    /// Decided in one transaction (the caller's, or one of its own): a link not made yet is made
    /// first (another connection making the same one at once waits for it, then finds it made);
    /// one made already is read, and locked until the transaction ends where writers run
    /// concurrently, so of two users restoring one subscription at once the second sees the
    /// first's link and its restore behaviour decides.
    public func link(
        userId: String, transactions: [Transaction], latestReceipt: String?, restore: RestoreBehaviour, now: Instant
    ) throws(StorageError) -> [String] {
        let subscriptions = SubscriptionKey.sorted(of: transactions)
        return try inWrite { () throws(StorageError) -> [String] in
            try run(WritingSQL.insertUser, [.text(userId), .integer(now.milliseconds)])
            let claim = try prepare(WritingSQL.claimSubscription)
            let owner = try prepare(Self.dialect.statements.lockedOwner)
            let upsert = try prepare(WritingSQL.upsertSubscription)
            var previousOwners: Set<ExactKey> = []
            // Those the claim inserted are linked as the upsert below would leave them.
            var claimed: Set<SubscriptionKey> = []
            for key in subscriptions {
                let link: [Value] = [
                    .text(key.environment.rawValue), .text(key.originalTransactionId), .text(userId), .optional(latestReceipt), .integer(now.milliseconds),
                ]
                if try run(claim, link) == 1 {
                    claimed.insert(key)
                    continue
                }
                let current = try firstRow(owner, [.text(key.environment.rawValue), .text(key.originalTransactionId)]) {
                    row throws(Row.Failure) in try row.text(0)
                }
                // The same user only when the same bytes: a canonically equivalent spelling is another user.
                guard let current, !current.sameBytes(as: userId) else { continue }
                guard try restore.moves(isActive: { () throws(StorageError) in try isActive(key, now: now) }) else {
                    throw .receiptAlreadyInUse(environment: key.environment.rawValue, originalTransactionId: key.originalTransactionId, userId: current)
                }
                previousOwners.insert(ExactKey(current))
            }
            for key in subscriptions where !claimed.contains(key) {
                try run(upsert, [
                    .text(key.environment.rawValue), .text(key.originalTransactionId), .text(userId), .optional(latestReceipt), .integer(now.milliseconds),
                ])
            }
            return previousOwners.sorted().map(\.text)
        }
    }

    /// Whether a transaction of the subscription covers `now` and was not refunded by then: its
    /// counted cancellation (`Transaction.countedCancellation`, R2.8) is none or later.
    private func isActive(_ key: SubscriptionKey, now: Instant) throws(StorageError) -> Bool {
        let transactions = try rows(Self.dialect.statements.subscriptionTransactions, [.text(key.environment.rawValue), .text(key.originalTransactionId)]) {
            row throws(Row.Failure) in try row.transaction()
        }
        return transactions.contains { $0.purchase <= now && ($0.expires.map { $0 > now } ?? true) && $0.cancellation(asOf: now) == nil }
    }

    public func recordLatestReceipt(_ receipt: String, environment: Environment, originalTransactionIds: [String]) throws(StorageError) {
        let update = try prepare(WritingSQL.updateLatestReceipt)
        let pending = try prepare(WritingSQL.upsertPendingReceipt)
        for original in Set(originalTransactionIds.map(ExactKey.init)) {
            try run(update, [.text(receipt), .text(environment.rawValue), .text(original.text)])
            try run(pending, [.text(environment.rawValue), .text(original.text), .text(receipt)])
        }
    }

    public func upsertIssue(publicationId: String, issue: Issue) throws(StorageError) {
        try run(WritingSQL.upsertIssue, [.text(publicationId), .text(issue.id), .optional(issue.title), .integer(issue.published.milliseconds), .bool(issue.isFree)])
    }

    /// A transaction's columns as parameters, in the order of ``StoreColumns/transaction``.
    static func values(of transaction: Transaction) -> [Value] {
        [
            .text(transaction.environment.rawValue), .text(transaction.transactionId), .text(transaction.originalTransactionId),
            .text(transaction.productId), .integer(transaction.purchase.milliseconds), .optional(transaction.expires?.milliseconds),
            .optional(transaction.cancellation?.milliseconds), .bool(transaction.isUpgraded), .bool(transaction.isTrial),
            .bool(transaction.isIntroductoryOffer), .optional(transaction.offer?.rawValue), .optional(transaction.signedDate?.milliseconds),
            .optional(transaction.unsignedCancellation?.milliseconds), .optional(transaction.revocationType?.rawValue),
            .optional(transaction.revocationPercentage.map(Int64.init)), .optional(transaction.terms.map(StoredTerms.text)),
        ]
    }
}

/// The statements of writing, the same in every dialect.
enum WritingSQL {
    static let insertTransaction = """
        INSERT INTO transactions (\(StoreColumns.transaction))
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
        ON CONFLICT (environment, transaction_id) DO NOTHING
        """
    static let updateTransaction = """
        UPDATE transactions SET original_transaction_id = $3, product_id = $4, purchase_ms = $5, expires_ms = $6,
            cancellation_ms = $7, is_upgraded = $8, is_trial = $9, is_intro_offer = $10, offer = $11, signed_date_ms = $12,
            unsigned_cancellation_ms = $13, revocation_type = $14, revocation_percentage = $15, terms = $16
        WHERE environment = $1 AND transaction_id = $2
        """
    static let insertUser = "INSERT INTO users (user_id, created_ms) VALUES ($1, $2) ON CONFLICT DO NOTHING"
    static let claimSubscription = """
        INSERT INTO subscriptions (environment, original_transaction_id, user_id, latest_receipt, linked_ms) VALUES ($1, $2, $3, $4, $5)
        ON CONFLICT (environment, original_transaction_id) DO NOTHING
        """
    static let upsertSubscription = """
        INSERT INTO subscriptions (environment, original_transaction_id, user_id, latest_receipt, linked_ms) VALUES ($1, $2, $3, $4, $5)
        ON CONFLICT (environment, original_transaction_id) DO UPDATE SET
            user_id = excluded.user_id, latest_receipt = coalesce(excluded.latest_receipt, subscriptions.latest_receipt),
            linked_ms = excluded.linked_ms
        """
    static let updateLatestReceipt = "UPDATE subscriptions SET latest_receipt = $1 WHERE environment = $2 AND original_transaction_id = $3"
    static let upsertPendingReceipt = """
        INSERT INTO pending_receipts (environment, original_transaction_id, latest_receipt) VALUES ($1, $2, $3)
        ON CONFLICT (environment, original_transaction_id) DO UPDATE SET latest_receipt = excluded.latest_receipt
        """
    static let upsertIssue = """
        INSERT INTO issues (publication_id, issue_id, title, published_ms, free) VALUES ($1, $2, $3, $4, $5)
        ON CONFLICT (publication_id, issue_id) DO UPDATE SET title = excluded.title, published_ms = excluded.published_ms, free = excluded.free
        """
}
