public import Masthead

/// What happens when a receipt names a subscription already linked to another user.
public enum RestoreBehaviour: String, Sendable, CaseIterable {
    /// Move the subscription to the user who posted the receipt (Apple's guidance for restores).
    case transfer
    /// Refuse: the receipt is rejected as already in use.
    case keep
    /// Move it only when no transaction of it covers the present instant.
    case transferIfInactive
}

/// A subscription whose expiry is near, for the polling job (seed 003, "Bonus Step 6").
public struct RefreshDue: Hashable, Sendable {
    public var environment: Environment
    public var originalTransactionId: String
    public var userId: String?
    public var expires: Instant
    /// The latest base64 receipt known for the subscription, to re-verify with Apple.
    public var latestReceipt: String?

    /// Creates an entry.
    public init(environment: Environment, originalTransactionId: String, userId: String?, expires: Instant, latestReceipt: String?) {
        self.environment = environment
        self.originalTransactionId = originalTransactionId
        self.userId = userId
        self.expires = expires
        self.latestReceipt = latestReceipt
    }
}

/// The service's durable state in SQLite: users and the subscriptions linked to them,
/// every transaction (merged per R2.3), every distinct renewal info with its evidence instant
/// (R2.7), every notification's raw body, and issues published through the API.
///
/// Each method runs its statements on the caller's connection; wrap several in
/// ``Database/inTransaction(_:)`` to commit them together. No statement stays active after a
/// method returns, so a connection used only for reading holds no snapshot between calls: it
/// sees every commit made before each call, and checkpoints can restart the WAL.
///
/// The change log (``recordChanges(_:origin:)``, ``changes(after:notFrom:)``) tells every process
/// using the file what the others' commits changed.
public final class Store {
    public let database: Database
    private var statements: [String: Statement] = [:]

    /// Opens the database at `path` and applies the migrations it has not seen.
    public init(path: String, readOnly: Bool = false) throws(StorageError) {
        database = try Database(path: path, readOnly: readOnly)
        if !readOnly { try Migrations.apply(to: database) }
    }

    /// The prepared statement for `sql`, compiled once per connection.
    func statement(_ sql: String) throws(StorageError) -> Statement {
        if let cached = statements[sql] { return cached }
        let prepared = try database.prepare(sql)
        statements[sql] = prepared
        return prepared
    }

    // MARK: Writing

    /// Stores transactions (merging copies: earliest purchase and cancellation, latest expiry,
    /// flags kept once set) and renewal infos (each distinct one once, with its evidence instant:
    /// which one is in force as of an instant is the engine's question, R2.7).
    public func save(transactions: [Transaction], renewals: [RenewalInfo]) throws(StorageError) {
        let insert = try statement("""
            INSERT INTO transactions (environment, transaction_id, original_transaction_id, product_id, purchase_ms,
                expires_ms, cancellation_ms, is_upgraded, is_trial, is_intro_offer)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (environment, transaction_id) DO UPDATE SET
                purchase_ms = min(purchase_ms, excluded.purchase_ms),
                expires_ms = CASE WHEN expires_ms IS NULL THEN excluded.expires_ms
                    WHEN excluded.expires_ms IS NULL THEN expires_ms ELSE max(expires_ms, excluded.expires_ms) END,
                cancellation_ms = CASE WHEN cancellation_ms IS NULL THEN excluded.cancellation_ms
                    WHEN excluded.cancellation_ms IS NULL THEN cancellation_ms ELSE min(cancellation_ms, excluded.cancellation_ms) END,
                is_upgraded = max(is_upgraded, excluded.is_upgraded),
                is_trial = max(is_trial, excluded.is_trial),
                is_intro_offer = max(is_intro_offer, excluded.is_intro_offer)
            """)
        for transaction in transactions {
            try insert.run([
                .text(transaction.environment.rawValue), .text(transaction.transactionId), .text(transaction.originalTransactionId),
                .text(transaction.productId), .integer(transaction.purchase.milliseconds), .optional(transaction.expires?.milliseconds),
                .optional(transaction.cancellation?.milliseconds), .integer(transaction.isUpgraded ? 1 : 0),
                .integer(transaction.isTrial ? 1 : 0), .integer(transaction.isIntroductoryOffer ? 1 : 0),
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
        for info in Store.resolve(renewals, transactions: transactions) {
            try renewal.run([
                .text(info.environment.rawValue), .optional(info.originalTransactionId), .optional(info.evidence?.milliseconds),
                .optional(info.productId), .optional(info.autoRenewProductId), .optional(info.autoRenewOn.map { $0 ? 1 : 0 }),
                .integer(info.isInBillingRetry ? 1 : 0), .optional(info.gracePeriodExpires?.milliseconds), .optional(info.expirationIntent),
            ])
        }
    }

    /// Names renewal infos without an original transaction id by the subscription whose latest
    /// transaction has their product (R2.6); ones that match nothing are left out.
    static func resolve(_ renewals: [RenewalInfo], transactions: [Transaction]) -> [RenewalInfo] {
        // The latest transaction of each subscription, computed once for all renewal infos.
        var latest: [SubscriptionKey: Transaction] = [:]
        for transaction in transactions {
            let key = SubscriptionKey(environment: transaction.environment, originalTransactionId: transaction.originalTransactionId)
            if let current = latest[key], (current.purchase, current.transactionId) >= (transaction.purchase, transaction.transactionId) { continue }
            latest[key] = transaction
        }
        return renewals.compactMap { info in
            if info.originalTransactionId != nil { return info }
            guard let productId = info.productId,
                let match = latest.values.filter({ $0.environment == info.environment && $0.productId == productId })
                    .max(by: { ($0.purchase, $0.transactionId) < ($1.purchase, $1.transactionId) })
            else { return nil }
            var resolved = info
            resolved.originalTransactionId = match.originalTransactionId
            return resolved
        }
    }

    /// Links the subscriptions of `transactions` to `userId`, applying `restore` to subscriptions
    /// linked to someone else; returns the users they were taken from.
    /// - Throws: ``StorageError/receiptAlreadyInUse(environment:originalTransactionId:userId:)`` when refused;
    ///   nothing is linked then.
    public func link(
        userId: String, transactions: [Transaction], latestReceipt: String?, restore: RestoreBehaviour, now: Instant
    ) throws(StorageError) -> [String] {
        try statement("INSERT INTO users (user_id, created_ms) VALUES (?, ?) ON CONFLICT DO NOTHING")
            .run([.text(userId), .integer(now.milliseconds)])
        let subscriptions = Set(transactions.map { SubscriptionKey(environment: $0.environment, originalTransactionId: $0.originalTransactionId) })
        let owner = try statement("SELECT user_id FROM subscriptions WHERE environment = ? AND original_transaction_id = ?")
        var moves: [(SubscriptionKey, String)] = []
        for key in subscriptions.sorted(by: { ($0.environment.rawValue, $0.originalTransactionId) < ($1.environment.rawValue, $1.originalTransactionId) }) {
            guard let current = try owner.firstRow([.text(key.environment.rawValue), .text(key.originalTransactionId)], { $0.text(0) }) ?? nil,
                current != userId
            else { continue }
            switch restore {
            case .transfer: moves.append((key, current))
            case .keep: throw StorageError.receiptAlreadyInUse(environment: key.environment.rawValue, originalTransactionId: key.originalTransactionId, userId: current)
            case .transferIfInactive:
                if try isActive(key, now: now) {
                    throw StorageError.receiptAlreadyInUse(environment: key.environment.rawValue, originalTransactionId: key.originalTransactionId, userId: current)
                }
                moves.append((key, current))
            }
        }
        let upsert = try statement("""
            INSERT INTO subscriptions (environment, original_transaction_id, user_id, latest_receipt, linked_ms) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (environment, original_transaction_id) DO UPDATE SET
                user_id = excluded.user_id, latest_receipt = coalesce(excluded.latest_receipt, latest_receipt), linked_ms = excluded.linked_ms
            """)
        for key in subscriptions {
            try upsert.run([.text(key.environment.rawValue), .text(key.originalTransactionId), .text(userId), .optional(latestReceipt), .integer(now.milliseconds)])
        }
        return Array(Set(moves.map(\.1))).sorted()
    }

    /// Whether a transaction of the subscription covers `now` and was not refunded.
    private func isActive(_ key: SubscriptionKey, now: Instant) throws(StorageError) -> Bool {
        let query = try statement("""
            SELECT 1 FROM transactions WHERE environment = ? AND original_transaction_id = ? AND purchase_ms <= ?
                AND (expires_ms IS NULL OR expires_ms > ?) AND (cancellation_ms IS NULL OR cancellation_ms > ?) LIMIT 1
            """)
        let values: [SQLValue] = [
            .text(key.environment.rawValue), .text(key.originalTransactionId), .integer(now.milliseconds), .integer(now.milliseconds), .integer(now.milliseconds),
        ]
        return try query.firstRow(values) { _ in true } ?? false
    }

    /// Records the latest base64 receipt of already linked or not yet linked subscriptions.
    public func recordLatestReceipt(_ receipt: String, environment: Environment, originalTransactionIds: [String]) throws(StorageError) {
        let update = try statement("UPDATE subscriptions SET latest_receipt = ? WHERE environment = ? AND original_transaction_id = ?")
        for original in Set(originalTransactionIds) { try update.run([.text(receipt), .text(environment.rawValue), .text(original)]) }
        let pending = try statement("""
            INSERT INTO pending_receipts (environment, original_transaction_id, latest_receipt) VALUES (?, ?, ?)
            ON CONFLICT (environment, original_transaction_id) DO UPDATE SET latest_receipt = excluded.latest_receipt
            """)
        for original in Set(originalTransactionIds) { try pending.run([.text(environment.rawValue), .text(original), .text(receipt)]) }
    }

    /// Keeps a notification's raw body, for audit; returns its row id.
    public func recordNotification(
        type: String, environment: Environment?, originalTransactionIds: [String], body: String, received: Instant
    ) throws(StorageError) -> Int64 {
        try statement("""
            INSERT INTO notifications (received_ms, notification_type, environment, original_transaction_ids, body) VALUES (?, ?, ?, ?, ?)
            """).run([.integer(received.milliseconds), .text(type), .optional(environment?.rawValue), .text(originalTransactionIds.joined(separator: ",")), .text(body)])
        return database.lastInsertRowID
    }

    /// Publishes or corrects an issue; it survives restarts.
    public func upsertIssue(publicationId: String, issue: Issue) throws(StorageError) {
        try statement("""
            INSERT INTO issues (publication_id, issue_id, title, published_ms, free) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (publication_id, issue_id) DO UPDATE SET title = excluded.title, published_ms = excluded.published_ms, free = excluded.free
            """).run([.text(publicationId), .text(issue.id), .optional(issue.title), .integer(issue.published.milliseconds), .integer(issue.isFree ? 1 : 0)])
    }

    // MARK: Reading

    /// Everything stored for the subscriptions linked to `userId`.
    public func history(forUser userId: String) throws(StorageError) -> PurchaseHistory {
        let query = try statement("""
            SELECT t.environment, t.transaction_id, t.original_transaction_id, t.product_id, t.purchase_ms, t.expires_ms,
                t.cancellation_ms, t.is_upgraded, t.is_trial, t.is_intro_offer
            FROM subscriptions s JOIN transactions t ON t.environment = s.environment AND t.original_transaction_id = s.original_transaction_id
            WHERE s.user_id = ?
            """)
        let transactions = try query.rows([.text(userId)]) { row in
            Transaction(
                transactionId: row.text(1) ?? "", originalTransactionId: row.text(2), productId: row.text(3) ?? "",
                purchase: Instant(milliseconds: row.integer(4) ?? 0), expires: row.integer(5).map(Instant.init(milliseconds:)),
                cancellation: row.integer(6).map(Instant.init(milliseconds:)), isUpgraded: row.integer(7) == 1,
                isTrial: row.integer(8) == 1, isIntroductoryOffer: row.integer(9) == 1,
                environment: Environment(rawValue: row.text(0) ?? "") ?? .production)
        }
        let renewalsQuery = try statement("""
            SELECT r.environment, r.original_transaction_id, r.product_id, r.auto_renew_product_id, r.auto_renew_on, r.billing_retry,
                r.grace_expires_ms, r.expiration_intent, r.evidence_ms
            FROM subscriptions s JOIN renewal_history r ON r.environment = s.environment AND r.original_transaction_id = s.original_transaction_id
            WHERE s.user_id = ?
            """)
        let renewals = try renewalsQuery.rows([.text(userId)]) { row in
            RenewalInfo(
                environment: Environment(rawValue: row.text(0) ?? "") ?? .production,
                originalTransactionId: row.text(1), productId: row.text(2),
                autoRenewProductId: row.text(3), autoRenewOn: row.integer(4).map { $0 == 1 },
                isInBillingRetry: row.integer(5) == 1,
                gracePeriodExpires: row.integer(6).map(Instant.init(milliseconds:)), expirationIntent: row.text(7),
                evidence: row.integer(8).map(Instant.init(milliseconds:)))
        }
        return PurchaseHistory(transactions: transactions, renewals: renewals)
    }

    /// Up to `limit` user ids in id order, after `userId` (from the first when nil): pages for a
    /// reader walking every user, such as `masthead audit --database`.
    public func userIds(after userId: String?, limit: Int) throws(StorageError) -> [String] {
        let query = try statement("SELECT user_id FROM users WHERE ?1 IS NULL OR user_id > ?1 ORDER BY user_id LIMIT ?2")
        return try query.rows([userId.map(SQLValue.text) ?? .null, .integer(Int64(limit))]) { $0.text(0) ?? "" }
    }

    /// How many users have been seen.
    public func userCount() throws(StorageError) -> Int {
        Int(try database.scalarText("SELECT count(*) FROM users") ?? "0") ?? 0
    }

    /// Whether a user has been seen (posted a receipt).
    public func userExists(_ userId: String) throws(StorageError) -> Bool {
        try statement("SELECT 1 FROM users WHERE user_id = ?").firstRow([.text(userId)]) { _ in true } ?? false
    }

    /// The users linked to these subscriptions.
    public func users(linkedTo originalTransactionIds: [String], environment: Environment) throws(StorageError) -> [String] {
        let query = try statement("SELECT user_id FROM subscriptions WHERE environment = ? AND original_transaction_id = ?")
        var users: Set<String> = []
        for original in Set(originalTransactionIds) {
            for user in try query.rows([.text(environment.rawValue), .text(original)], { $0.text(0) }) { if let user { users.insert(user) } }
        }
        return users.sorted()
    }

    /// Issues published or corrected through the API, by publication.
    public func publishedIssues() throws(StorageError) -> [(publicationId: String, issue: Issue)] {
        let query = try statement("SELECT publication_id, issue_id, title, published_ms, free FROM issues ORDER BY publication_id, published_ms, issue_id")
        return try query.rows([]) { row in
            (row.text(0) ?? "",
             Issue(id: row.text(1) ?? "", title: row.text(2), published: Instant(milliseconds: row.integer(3) ?? 0), isFree: row.integer(4) == 1))
        }
    }

    /// Subscriptions whose latest expiry lies in `[from, to)`, with their latest receipt.
    public func refreshDue(from: Instant, to: Instant) throws(StorageError) -> [RefreshDue] {
        let query = try statement("""
            SELECT t.environment, t.original_transaction_id, s.user_id, max(t.expires_ms) AS expires,
                coalesce(s.latest_receipt, p.latest_receipt)
            FROM transactions t
            LEFT JOIN subscriptions s ON s.environment = t.environment AND s.original_transaction_id = t.original_transaction_id
            LEFT JOIN pending_receipts p ON p.environment = t.environment AND p.original_transaction_id = t.original_transaction_id
            WHERE t.expires_ms IS NOT NULL
            GROUP BY t.environment, t.original_transaction_id
            HAVING expires >= ? AND expires < ?
            ORDER BY expires, t.original_transaction_id
            """)
        return try query.rows([.integer(from.milliseconds), .integer(to.milliseconds)]) { row in
            RefreshDue(
                environment: Environment(rawValue: row.text(0) ?? "") ?? .production, originalTransactionId: row.text(1) ?? "",
                userId: row.text(2), expires: Instant(milliseconds: row.integer(3) ?? 0), latestReceipt: row.text(4))
        }
    }

    /// How many notifications are stored.
    public func notificationCount() throws(StorageError) -> Int {
        Int(try database.scalarText("SELECT count(*) FROM notifications").flatMap { Int64($0) } ?? 0)
    }
}

/// A subscription: environment and original transaction id (R14).
struct SubscriptionKey: Hashable {
    var environment: Environment
    var originalTransactionId: String
}
