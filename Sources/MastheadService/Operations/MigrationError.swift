/// Why `masthead migrate` could not move a receipt-only subscription.
enum MigrationError: ServiceFailure {
    /// Apple's transaction history for a subscription's original transaction id has none of its
    /// transactions (a receipt-only subscription `masthead migrate` cannot move).
    case subscriptionNotInHistory(environment: String, originalTransactionId: String)

    var rendering: (status: Int, code: String, message: String) {
        switch self {
        case .subscriptionNotInHistory(let environment, let original):
            (502, "subscription_not_in_history", "Apple's transaction history has no transaction of subscription \(original) (\(environment))")
        }
    }

    static var examples: [MigrationError] { [.subscriptionNotInHistory(environment: "", originalTransactionId: "")] }
}
