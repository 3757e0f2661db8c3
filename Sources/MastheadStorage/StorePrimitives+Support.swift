public import Masthead

/// What support tools read of a store, once for every backend: the users a text names, and the
/// subscriptions linked to a user.
extension StorePrimitives {
    /// Each kind is one lookup by primary key or index, per environment for the transaction kinds;
    /// every comparison is of bytes (SQLite's binary collation, PostgreSQL's `C`).
    public func lookup(_ text: String) throws(StorageError) -> [LookupMatch] {
        let value: [Value] = [.text(text)]
        var matches: [LookupMatch] = []
        if try userExists(text) { matches.append(LookupMatch(userId: text, kind: .userId)) }
        if let owner = try userId(forAppAccountToken: text) { matches.append(LookupMatch(userId: owner, kind: .appAccountToken)) }
        for environment in Environment.allCases {
            let key: [Value] = [.text(environment.rawValue), .text(text)]
            if let owner = try firstRow(ReadingSQL.subscriptionOwner, key, { row throws(Row.Failure) in try row.text(0) }) {
                matches.append(LookupMatch(userId: owner, kind: .originalTransactionId, environment: environment))
            }
            if let owner = try firstRow(SupportSQL.transactionOwner, key, { row throws(Row.Failure) in try row.text(0) }) {
                matches.append(LookupMatch(userId: owner, kind: .transactionId, environment: environment))
            }
        }
        if let owner = try firstRow("SELECT user_id FROM grants WHERE grant_id = $1", value, { row throws(Row.Failure) in try row.text(0) }) {
            matches.append(LookupMatch(userId: owner, kind: .grantId))
        }
        if let owner = try firstRow(SupportSQL.googlePlayTokenOwner, value, { row throws(Row.Failure) in try row.optionalText(0) }) ?? nil {
            matches.append(LookupMatch(userId: owner, kind: .googlePlayPurchaseToken))
        }
        for owner in try rows(SupportSQL.googlePlayOrderOwners, value, { row throws(Row.Failure) in try row.text(0) }) {
            matches.append(LookupMatch(userId: owner, kind: .googlePlayOrderId))
        }
        return matches.sorted(by: LookupMatch.precedes)
    }

    public func subscriptions(forUser userId: String) throws(StorageError) -> [LinkedSubscription] {
        try rows(
            "SELECT environment, original_transaction_id, linked_ms FROM subscriptions WHERE user_id = $1 ORDER BY environment, original_transaction_id",
            [.text(userId)]
        ) { row throws(Row.Failure) in
            LinkedSubscription(environment: try row.environment(0), originalTransactionId: try row.text(1), linked: try row.instant(2))
        }
    }
}

/// The statements of support tools' reads, the same in every dialect.
enum SupportSQL {
    /// The user a transaction's subscription is linked to ($1 environment, $2 transaction id).
    static let transactionOwner = """
        SELECT s.user_id FROM transactions t
        JOIN subscriptions s ON s.environment = t.environment AND s.original_transaction_id = t.original_transaction_id
        WHERE t.environment = $1 AND t.transaction_id = $2
        """
    /// The user a Google Play purchase token ($1) is linked to (no row when not stored, NULL when not linked).
    static let googlePlayTokenOwner = "SELECT user_id FROM google_play_purchases WHERE purchase_token = $1"
    /// The users the purchases holding an order id ($1) are linked to.
    static let googlePlayOrderOwners = """
        SELECT DISTINCT p.user_id FROM google_play_orders o JOIN google_play_purchases p ON p.purchase_token = o.purchase_token
        WHERE o.order_id = $1 AND p.user_id IS NOT NULL
        """
}
