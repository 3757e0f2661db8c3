/// Why `masthead migrate` could not move a receipt-only subscription.
enum MigrationError: ServiceFailure {
    /// Apple's transaction history for a subscription's original transaction id has none of its
    /// transactions (a receipt-only subscription `masthead migrate` cannot move).
    case subscriptionNotInHistory(environment: String, originalTransactionId: String)

    var status: Int { 502 }

    var code: String { "subscription_not_in_history" }

    var message: String {
        switch self {
        case .subscriptionNotInHistory(let environment, let original):
            "Apple's transaction history has no transaction of subscription \(original) (\(environment))"
        }
    }

    static var examples: [MigrationError] { [.subscriptionNotInHistory(environment: "", originalTransactionId: "")] }
}
