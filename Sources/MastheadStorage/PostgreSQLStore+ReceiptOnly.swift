public import Masthead
import MastheadPostgreSQL

/// The subscriptions `masthead migrate` moves from receipts to signed data.
extension PostgreSQLStore {
    public func receiptOnlySubscriptions() throws(StorageError) -> [ReceiptOnlySubscription] {
        try postgreSQL { () throws(PostgreSQLError) in
            try connection.rows(
                """
                SELECT t.environment, t.original_transaction_id, s.user_id
                FROM transactions t
                LEFT JOIN subscriptions s ON s.environment = t.environment AND s.original_transaction_id = t.original_transaction_id
                GROUP BY t.environment, t.original_transaction_id, s.user_id
                HAVING count(t.signed_date_ms) = 0
                ORDER BY t.environment, t.original_transaction_id
                """, []
            ) { row throws(PostgreSQLError) in
                ReceiptOnlySubscription(environment: try row.environment(0), originalTransactionId: try row.text(1), userId: try row.optionalText(2))
            }
        }
    }

    public func history(environment: Environment, originalTransactionId: String) throws(StorageError) -> PurchaseHistory {
        try postgreSQL { () throws(PostgreSQLError) in
            let key: [PostgreSQLValue] = [.text(environment.rawValue), .text(originalTransactionId)]
            let transactions = try connection.rows(
                """
                SELECT \(SQLiteStore.transactionColumns()) FROM transactions WHERE environment = $1 AND original_transaction_id = $2
                ORDER BY purchase_ms, transaction_id
                """, key
            ) { row throws(PostgreSQLError) in try row.transaction() }
            let renewals = try connection.rows(
                """
                SELECT environment, original_transaction_id, product_id, auto_renew_product_id, auto_renew_on, billing_retry,
                    grace_expires_ms, expiration_intent, evidence_ms
                FROM renewal_history WHERE environment = $1 AND original_transaction_id = $2
                ORDER BY id
                """, key
            ) { row throws(PostgreSQLError) in
                RenewalInfo(
                    environment: try row.environment(0), originalTransactionId: try row.text(1), productId: try row.optionalText(2),
                    autoRenewProductId: try row.optionalText(3), autoRenewOn: try row.optionalBool(4), isInBillingRetry: try row.bool(5),
                    gracePeriodExpires: try row.optionalInstant(6), expirationIntent: try row.optionalText(7), evidence: try row.optionalInstant(8))
            }
            return PurchaseHistory(transactions: transactions, renewals: renewals)
        }
    }
}
