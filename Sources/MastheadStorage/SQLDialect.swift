/// What a backend's SQL spells differently, and the few statements built from it once per backend.
///
/// The store's statements are written once, numbering their parameters `$1`, `$2`… (a backend
/// whose placeholders differ rewrites them when it prepares a statement), casting with
/// `CAST(… AS …)` and resolving conflicts with `ON CONFLICT`; what is left to a dialect is below.
public struct SQLDialect: Sendable {
    /// Appended to a `SELECT` that reads a row the transaction will write back: locks it until
    /// the transaction ends where writers run concurrently (`FOR UPDATE`), nothing where one
    /// writer holds the whole database.
    let lockingRead: String
    /// The comparison true when both sides are equal or both NULL (`IS`, `IS NOT DISTINCT FROM`).
    let isNotDistinctFrom: String
    /// The column that orders a table's rows as they were inserted (`rowid`, an identity `id`).
    let insertionOrder: String
    /// Whether a history's queries sort their rows (`ORDER BY`) to come back in one order: a
    /// planner may return a join's rows in any order (PostgreSQL), or in the order of the indexes
    /// it reads, the same for the same data (SQLite, which then sorts nothing on the download
    /// check's path).
    let sortsHistories: Bool
    /// The expression counting the bytes of a text or bytes expression.
    let byteLength: @Sendable (String) -> String

    /// The statements whose text depends on the dialect, built once.
    let statements: DialectStatements

    /// A dialect from its spellings (see the properties of the same names).
    public init(
        lockingRead: String, isNotDistinctFrom: String, insertionOrder: String, sortsHistories: Bool, byteLength: @escaping @Sendable (String) -> String
    ) {
        self.lockingRead = lockingRead
        self.isNotDistinctFrom = isNotDistinctFrom
        self.insertionOrder = insertionOrder
        self.sortsHistories = sortsHistories
        self.byteLength = byteLength
        statements = DialectStatements(
            lockingRead: lockingRead, isNotDistinctFrom: isNotDistinctFrom, insertionOrder: insertionOrder, sortsHistories: sortsHistories,
            byteLength: byteLength)
    }

    /// SQLite's: one writer at a time (nothing to lock row by row), `IS`, the rowid, histories in
    /// index order, `length(CAST(… AS BLOB))`.
    public static let sqlite = SQLDialect(
        lockingRead: "", isNotDistinctFrom: "IS", insertionOrder: "rowid", sortsHistories: false, byteLength: { "length(CAST(\($0) AS BLOB))" })

    /// PostgreSQL's: `FOR UPDATE`, `IS NOT DISTINCT FROM`, the identity column `id`, sorted
    /// histories, `octet_length`.
    public static let postgreSQL = SQLDialect(
        lockingRead: " FOR UPDATE", isNotDistinctFrom: "IS NOT DISTINCT FROM", insertionOrder: "id", sortsHistories: true,
        byteLength: { "octet_length(\($0))" })

    /// `sql` with its `$N` parameters written `?N`, for SQLite (which would take `$1` for a named
    /// parameter numbered by first appearance). The store's statements hold no `$` elsewhere.
    static func questionMarkParameters(_ sql: String) -> String {
        String(decoding: sql.utf8.map { $0 == UInt8(ascii: "$") ? UInt8(ascii: "?") : $0 }, as: UTF8.self)
    }
}

/// The statements whose text depends on the dialect.
struct DialectStatements: Sendable {
    /// A transaction's stored copy, locked until the transaction ends ($1 environment, $2 transaction id).
    let storedTransaction: String
    /// Inserts a renewal info unless the same one is stored ($1–$10: environment, original
    /// transaction id, evidence, product, auto-renew product, auto-renew, billing retry, grace
    /// expiry, expiration intent, terms).
    let insertRenewal: String
    /// The user a subscription is linked to, locked until the transaction ends ($1 environment, $2 original transaction id).
    let lockedOwner: String
    /// The transactions of the subscriptions linked to a user ($1), by subscription, purchase and id.
    let userTransactions: String
    /// The renewal infos of the subscriptions linked to a user ($1), by subscription, in the order they were stored.
    let userRenewals: String
    /// The transactions of one subscription ($1 environment, $2 original transaction id), by purchase and id.
    let subscriptionTransactions: String
    /// The renewal infos of one subscription ($1 environment, $2 original transaction id), in the order they were stored.
    let subscriptionRenewals: String
    /// The id and bytes up to and including the newest rejected notification of a kind ($1).
    let lastRejected: String
    /// The newest rejected notifications ($1 how many), without their bodies.
    let rejected: String
    /// The newest rejected notifications ($1 how many), with their bodies.
    let rejectedWithBodies: String

    init(lockingRead: String, isNotDistinctFrom same: String, insertionOrder: String, sortsHistories: Bool, byteLength: (String) -> String) {
        let orderBy = { (columns: String) in sortsHistories ? "\nORDER BY \(columns)" : "" }
        storedTransaction = "SELECT \(StoreColumns.transaction) FROM transactions WHERE environment = $1 AND transaction_id = $2\(lockingRead)"
        insertRenewal = """
            INSERT INTO renewal_history (environment, original_transaction_id, evidence_ms, product_id, auto_renew_product_id,
                auto_renew_on, billing_retry, grace_expires_ms, expiration_intent, terms)
            SELECT CAST($1 AS text), CAST($2 AS text), CAST($3 AS bigint), CAST($4 AS text), CAST($5 AS text), CAST($6 AS boolean),
                CAST($7 AS boolean), CAST($8 AS bigint), CAST($9 AS text), CAST($10 AS text)
            WHERE NOT EXISTS (SELECT 1 FROM renewal_history WHERE environment = $1 AND original_transaction_id = $2
                AND evidence_ms \(same) $3 AND product_id \(same) $4 AND auto_renew_product_id \(same) $5 AND auto_renew_on \(same) $6
                AND billing_retry = $7 AND grace_expires_ms \(same) $8 AND expiration_intent \(same) $9 AND terms \(same) $10)
            """
        lockedOwner = "SELECT user_id FROM subscriptions WHERE environment = $1 AND original_transaction_id = $2\(lockingRead)"
        userTransactions = """
            SELECT \(StoreColumns.transaction("t."))
            FROM subscriptions s JOIN transactions t ON t.environment = s.environment AND t.original_transaction_id = s.original_transaction_id
            WHERE s.user_id = $1
            """ + orderBy("t.environment, t.original_transaction_id, t.purchase_ms, t.transaction_id")
        userRenewals = """
            SELECT \(StoreColumns.renewal("r."))
            FROM subscriptions s JOIN renewal_history r ON r.environment = s.environment AND r.original_transaction_id = s.original_transaction_id
            WHERE s.user_id = $1
            """ + orderBy("r.environment, r.original_transaction_id, r.\(insertionOrder)")
        subscriptionTransactions =
            "SELECT \(StoreColumns.transaction) FROM transactions WHERE environment = $1 AND original_transaction_id = $2"
            + orderBy("purchase_ms, transaction_id")
        subscriptionRenewals =
            "SELECT \(StoreColumns.renewal()) FROM renewal_history WHERE environment = $1 AND original_transaction_id = $2"
            + orderBy(insertionOrder)
        lastRejected = """
            SELECT kind_seq, bytes_before + \(byteLength("body")) + \(byteLength("reason")) FROM rejected_notifications
            WHERE kind = $1 ORDER BY kind_seq DESC LIMIT 1
            """
        rejected = "SELECT id, received_ms, reason, \(byteLength("body")), kind FROM rejected_notifications ORDER BY id DESC LIMIT $1"
        rejectedWithBodies = "SELECT id, received_ms, reason, \(byteLength("body")), kind, body FROM rejected_notifications ORDER BY id DESC LIMIT $1"
    }
}

/// The column lists the row mappings of ``StoreRow`` read, in their order.
enum StoreColumns {
    /// The transactions table's columns `StoreRow.transaction()` reads.
    static let transaction = transaction("")

    /// The transactions table's columns `StoreRow.transaction()` reads, each prefixed with `table` (`"t."`).
    static func transaction(_ table: String) -> String {
        [
            "environment", "transaction_id", "original_transaction_id", "product_id", "purchase_ms", "expires_ms", "cancellation_ms",
            "is_upgraded", "is_trial", "is_intro_offer", "offer", "signed_date_ms", "unsigned_cancellation_ms", "revocation_type",
            "revocation_percentage", "terms",
        ].map { table + $0 }.joined(separator: ", ")
    }

    /// The renewal history's columns `StoreRow.renewal()` reads, each prefixed with `table` (`"r."`).
    static func renewal(_ table: String = "") -> String {
        [
            "environment", "original_transaction_id", "product_id", "auto_renew_product_id", "auto_renew_on", "billing_retry",
            "grace_expires_ms", "expiration_intent", "evidence_ms", "terms",
        ].map { table + $0 }.joined(separator: ", ")
    }
}
