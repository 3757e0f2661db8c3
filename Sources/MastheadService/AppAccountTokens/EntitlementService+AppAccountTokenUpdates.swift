import Masthead
import MastheadFormats
import MastheadStorage

/// Set App Account Token calls owed to Apple: which subscriptions a link owes one, and the
/// writes that claim and close them (``AppAccountTokenUpdater`` sends them).
extension EntitlementService {
    /// Whether links queue Set App Account Token calls: only when the App Store Server API's key
    /// is configured (nobody could send them otherwise).
    var queuesAppAccountTokenUpdates: Bool { configuration.hasAppStoreServerAPICredentials }

    /// The subscriptions of `transactions`, each once, but those of `carrying` (whose signed
    /// transactions or renewal info carried an app account token): those a link may owe a Set
    /// App Account Token call. Compared as bytes.
    static func withoutAppAccountToken(
        _ transactions: [Transaction], carrying: [(environment: Environment, originalTransactionId: String)]
    ) -> [(environment: Environment, originalTransactionId: String)] {
        var seen = Set(carrying.map { SubscriptionName(environment: $0.environment, originalTransactionId: ExactKey($0.originalTransactionId)) })
        var owed: [(environment: Environment, originalTransactionId: String)] = []
        for transaction in transactions
        where seen.insert(SubscriptionName(environment: transaction.environment, originalTransactionId: ExactKey(transaction.originalTransactionId))).inserted {
            owed.append((transaction.environment, transaction.originalTransactionId))
        }
        return owed
    }

    /// The subscriptions whose verified signed transactions or renewal infos carry an app
    /// account token.
    static func carryingAppAccountToken(
        _ transactions: [SignedTransaction], _ renewals: [SignedRenewal] = []
    ) -> [(environment: Environment, originalTransactionId: String)] {
        transactions.compactMap { $0.payload.appAccountToken == nil ? nil : ($0.transaction.environment, $0.transaction.originalTransactionId) }
            + renewals.compactMap { signed in
                guard signed.payload.appAccountToken != nil, let original = signed.renewal.originalTransactionId else { return nil }
                return (signed.renewal.environment, original)
            }
    }

    /// Claims the Set App Account Token call due first, committed before it returns; nil when
    /// none is due. A claimed call is not due again for `leaseMilliseconds`, unless its outcome
    /// is recorded first. `withdrawn` says why the call is no longer owed, read in the claim's
    /// transaction: the subscription is no longer linked to the user it was queued for (moved to
    /// another user), or that user no longer has the token; such a call must not be sent.
    func claimAppAccountTokenUpdate(leaseMilliseconds: Int64) throws -> (update: AppAccountTokenUpdate, withdrawn: String?)? {
        let now = clock()
        return try answerWrite { store in
            guard let update = try store.claimAppAccountTokenUpdate(now: now, retryAfter: now.adding(milliseconds: leaseMilliseconds)) else { return nil }
            return (update, try Self.withdrawal(of: update, store))
        }
    }

    /// Why `update` is no longer owed, or nil while its subscription is still linked to its user
    /// and the user still has its token (each compared as bytes).
    private static func withdrawal(of update: AppAccountTokenUpdate, _ store: any EntitlementStore) throws(StorageError) -> String? {
        let owners = try store.users(linkedTo: [update.originalTransactionId], environment: update.environment)
        guard owners.contains(where: { $0.sameBytes(as: update.userId) }) else {
            return "the subscription is no longer linked to user \(update.userId)"
        }
        guard try store.userId(forAppAccountToken: update.appAccountToken)?.sameBytes(as: update.userId) == true else {
            return "user \(update.userId) no longer has the app account token it was queued with"
        }
        return nil
    }

    /// Records what came of a Set App Account Token call, committed before it returns.
    func recordAppAccountTokenUpdate(
        _ update: AppAccountTokenUpdate, state: AppAccountTokenUpdate.State, nextAttempt: Instant?, lastError: String?
    ) throws {
        try answerWrite { store in
            try store.recordAppAccountTokenUpdate(
                environment: update.environment, originalTransactionId: update.originalTransactionId, state: state, nextAttempt: nextAttempt,
                lastError: lastError)
        }
    }
}

/// A subscription named by its environment and its original transaction id's exact bytes.
private struct SubscriptionName: Hashable {
    var environment: Environment
    var originalTransactionId: ExactKey
}
