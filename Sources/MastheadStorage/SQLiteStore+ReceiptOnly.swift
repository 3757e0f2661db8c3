public import Masthead
import MastheadSQLite

/// The subscriptions `masthead migrate` moves from receipts to signed data.
extension SQLiteStore {
    public func receiptOnlySubscriptions() throws(StorageError) -> [ReceiptOnlySubscription] {
        try sqlite { () throws(SQLiteError) in
            let query = try statement("""
                SELECT t.environment, t.original_transaction_id, s.user_id
                FROM transactions t
                LEFT JOIN subscriptions s ON s.environment = t.environment AND s.original_transaction_id = t.original_transaction_id
                GROUP BY t.environment, t.original_transaction_id
                HAVING max(t.signed_date_ms IS NOT NULL) = 0
                ORDER BY t.environment, t.original_transaction_id
                """)
            return try query.rows([]) { row throws(SQLiteError) in
                ReceiptOnlySubscription(environment: try row.environment(0), originalTransactionId: try row.text(1), userId: try row.optionalText(2))
            }
        }
    }

    public func history(environment: Environment, originalTransactionId: String) throws(StorageError) -> PurchaseHistory {
        try sqlite { () throws(SQLiteError) in
            let key: [SQLValue] = [.text(environment.rawValue), .text(originalTransactionId)]
            let transactions = try statement("SELECT \(SQLiteStore.transactionColumns()) FROM transactions WHERE environment = ? AND original_transaction_id = ?")
                .rows(key) { row throws(SQLiteError) in try row.transaction() }
            let renewals = try statement("""
                SELECT environment, original_transaction_id, product_id, auto_renew_product_id, auto_renew_on, billing_retry,
                    grace_expires_ms, expiration_intent, evidence_ms
                FROM renewal_history WHERE environment = ? AND original_transaction_id = ?
                """).rows(key) { row throws(SQLiteError) in
                RenewalInfo(
                    environment: try row.environment(0), originalTransactionId: try row.text(1), productId: try row.optionalText(2),
                    autoRenewProductId: try row.optionalText(3), autoRenewOn: try row.optionalBool(4), isInBillingRetry: try row.bool(5),
                    gracePeriodExpires: try row.optionalInstant(6), expirationIntent: try row.optionalText(7), evidence: try row.optionalInstant(8))
            }
            return PurchaseHistory(transactions: transactions, renewals: renewals)
        }
    }
}
