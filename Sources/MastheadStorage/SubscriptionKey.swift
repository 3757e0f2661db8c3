import Masthead

/// A subscription: environment and original transaction id (R14), the id's exact bytes.
struct SubscriptionKey: Hashable {
    var environment: Environment
    var originalTransactionId: String

    /// The subscriptions of `transactions`, each once, in (environment, original transaction id
    /// bytes) order.
    static func sorted(of transactions: [Transaction]) -> [SubscriptionKey] {
        Set(transactions.map { SubscriptionKey(environment: $0.environment, originalTransactionId: $0.originalTransactionId) })
            .sorted {
                $0.environment != $1.environment
                    ? $0.environment.rawValue < $1.environment.rawValue : $0.originalTransactionId.precedesInBytes($1.originalTransactionId)
            }
    }

    static func == (lhs: SubscriptionKey, rhs: SubscriptionKey) -> Bool {
        lhs.environment == rhs.environment && lhs.originalTransactionId.sameBytes(as: rhs.originalTransactionId)
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(environment)
        hasher.combine(ExactKey(originalTransactionId))
    }
}
