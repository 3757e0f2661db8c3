import Masthead

/// A subscription: environment and original transaction id (R14).
struct SubscriptionKey: Hashable {
    var environment: Environment
    var originalTransactionId: String

    /// The subscriptions of `transactions`, each once, in (environment, original transaction id) order.
    static func sorted(of transactions: [Transaction]) -> [SubscriptionKey] {
        Set(transactions.map { SubscriptionKey(environment: $0.environment, originalTransactionId: $0.originalTransactionId) })
            .sorted { ($0.environment.rawValue, $0.originalTransactionId) < ($1.environment.rawValue, $1.originalTransactionId) }
    }
}
