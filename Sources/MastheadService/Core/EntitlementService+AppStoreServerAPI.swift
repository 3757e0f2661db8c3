import Masthead
public import MastheadAppStore
import MastheadFormats
import MastheadStorage

extension EntitlementService {
    /// A client of the App Store Server API signing with the configured key and verifying
    /// answers as posted signed data is verified; nil when no key is configured.
    /// - Parameters:
    ///   - sleep: waits the given milliseconds before a retry (tests record instead).
    /// - Throws: ``ConfigurationError`` for unusable credentials or base URLs.
    public func appStoreServerAPIClient(
        sleep: (@Sendable (Int) -> Void)? = nil
    ) throws(ConfigurationError) -> AppStoreServerAPIClient? {
        guard let credentials = try configuration.appStoreCredentials() else { return nil }
        guard let verifier = signedDataVerifier else {
            throw .invalid("appStoreBundleId is not set: the App Store Server API's tokens and answers need the app's bundle id")
        }
        do {
            return try AppStoreServerAPIClient(
                credentials: credentials, verifier: verifier, configuration: configuration.appStoreServerAPIConfiguration,
                transport: configuration.appStoreTransport, sleep: sleep)
        } catch {
            throw .invalid(error.description)
        }
    }

    /// Applies what Get All Subscription Statuses answered, as version 2 notifications are
    /// applied: the transactions and renewal infos stored (merged under R2.8 and R2.7), each
    /// subscription linked as a notification links it (its user, else the owner of its app
    /// account token, else left unlinked). Committed before it returns; the users whose history
    /// changed are those linked to any subscription stored, a renewal info without a transaction
    /// included.
    public func applyPolled(_ statuses: SubscriptionStatuses) throws {
        let now = clock()
        let history = statuses.history
        let subscriptions = statuses.subscriptions.compactMap { subscription -> (Environment, String, String?)? in
            guard let transaction = subscription.transaction else { return nil }
            return (transaction.transaction.environment, transaction.transaction.originalTransactionId, transaction.payload.appAccountToken)
        }
        try applyPolledWrite { store in
            try store.save(transactions: history.transactions, renewals: history.renewals)
            var users: Set<ExactKey> = []
            for environment in Environment.allCases {
                let originals =
                    history.transactions.filter { $0.environment == environment }.map(\.originalTransactionId)
                    + history.renewals.filter { $0.environment == environment }.compactMap(\.originalTransactionId)
                if originals.isEmpty { continue }
                users.formUnion(try store.users(linkedTo: originals, environment: environment).map(ExactKey.init))
            }
            for (environment, originalTransactionId, token) in subscriptions {
                if let user = try store.linkSubscription(environment: environment, originalTransactionId: originalTransactionId, appAccountToken: token, now: now) {
                    users.insert(ExactKey(user))
                }
            }
            return users.sorted().map { Change.user($0.text) }
        }
    }
}
