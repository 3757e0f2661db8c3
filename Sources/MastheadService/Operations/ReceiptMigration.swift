import Masthead
public import MastheadAppStore
import MastheadFormats
public import MastheadStorage

/// Moves subscriptions known only from receipts to signed data (`masthead migrate`): for each,
/// Apple's App Store Server API is asked once for its history (Get Transaction History with its
/// original transaction id) and its renewal info (Get All Subscription Statuses), every token
/// verified; the subscription's signed transactions and renewal info are merged with what is
/// stored (R2.8: the signed state wins; R2.7) and its link to its user kept.
///
/// Each subscription is written in its own transaction, so a run that fails part way is resumed
/// by running it again: migrated subscriptions have signed data and are not asked again. A dry
/// run asks Apple and reports what would change, writing nothing.
public struct ReceiptMigration: Sendable {
    public let service: EntitlementService
    public let appStoreServerAPI: AppStoreServerAPIClient

    /// Creates a migration of `service`'s database through `appStoreServerAPI`.
    public init(service: EntitlementService, appStoreServerAPI: AppStoreServerAPIClient) {
        self.service = service
        self.appStoreServerAPI = appStoreServerAPI
    }

    /// What migrating one subscription changes (or would change).
    public struct Outcome: Sendable {
        public var subscription: ReceiptOnlySubscription
        /// Transactions Apple has that were not stored.
        public var added: [String] = []
        /// Stored transactions whose state the signed copy changes (an expiry, a cancellation, …).
        public var changed: [String] = []
        /// Stored transactions the signed copy confirms: only its signature is added.
        public var confirmed: [String] = []
        /// Whether Apple's renewal info is new to the store.
        public var renewalInfo = false

        /// `Production 1000001 (user ivy): 1 added (1000004), 1 changed (1000003), 2 confirmed, renewal info new`.
        public var line: String {
            var parts = [list("added", added), list("changed", changed), "\(confirmed.count) confirmed"]
            parts.append(renewalInfo ? "renewal info new" : "renewal info unchanged")
            return "\(subscription.environment.rawValue) \(subscription.originalTransactionId) (\(subscription.userId.map { "user \($0)" } ?? "no user")): "
                + parts.joined(separator: ", ")
        }

        private func list(_ label: String, _ ids: [String]) -> String {
            ids.isEmpty ? "0 \(label)" : "\(ids.count) \(label) (\(ids.joined(separator: ", ")))"
        }
    }

    /// What a run did (or, dry, would do).
    public struct Report: Sendable {
        public var dryRun: Bool
        /// The subscriptions migrated (or that would be), in the store's order.
        public var migrated: [Outcome] = []
        public var failures: [(subscription: ReceiptOnlySubscription, reason: String)] = []

        /// The summary line, such as `2 receipt-only subscriptions, 2 migrated (3 transactions added, 1 changed, 5 confirmed, 2 renewal infos), 0 failed`.
        public var summary: String {
            let count = migrated.count + failures.count
            let added = migrated.reduce(0) { $0 + $1.added.count }
            let changed = migrated.reduce(0) { $0 + $1.changed.count }
            let confirmed = migrated.reduce(0) { $0 + $1.confirmed.count }
            let renewals = migrated.filter(\.renewalInfo).count
            return "\(count) receipt-only subscription\(count == 1 ? "" : "s"), \(migrated.count) \(dryRun ? "would be migrated" : "migrated") "
                + "(\(added) transactions added, \(changed) changed, \(confirmed) confirmed, \(renewals) renewal infos), \(failures.count) failed"
        }
    }

    /// Migrates every subscription known only from receipts; `dryRun` writes nothing.
    /// - Throws: when the store cannot be read (a subscription that fails is reported, not thrown).
    public func run(dryRun: Bool) throws -> Report {
        var report = Report(dryRun: dryRun)
        for subscription in try service.receiptOnlySubscriptions() {
            do {
                report.migrated.append(try migrate(subscription, dryRun: dryRun))
            } catch {
                report.failures.append((subscription, (error as? any ServiceFailure)?.message ?? "\(error)"))
            }
        }
        return report
    }

    /// Asks Apple about one subscription, compares with the store and, unless `dryRun`, stores it.
    private func migrate(_ subscription: ReceiptOnlySubscription, dryRun: Bool) throws -> Outcome {
        let original = subscription.originalTransactionId
        let environment = subscription.environment
        let fetched = try appStoreServerAPI.transactionHistory(transactionId: original, servers: .only(environment)).transactions
            .flatMap(\.transactions).filter { $0.originalTransactionId.sameBytes(as: original) && $0.environment == environment }
        guard !fetched.isEmpty else {
            throw MigrationError.subscriptionNotInHistory(environment: environment.rawValue, originalTransactionId: original)
        }
        let renewals = try appStoreServerAPI.subscriptionStatuses(transactionId: original, servers: .only(environment)).subscriptions
            .compactMap { $0.renewal?.renewal }.filter { $0.originalTransactionId?.sameBytes(as: original) == true && $0.environment == environment }
        let stored = try service.storedHistory(environment: environment, originalTransactionId: original)
        let storedById = Dictionary(stored.transactions.map { (ExactKey($0.transactionId), $0) }, uniquingKeysWith: { $0.merged(with: $1) })
        var outcome = Outcome(subscription: subscription)
        for transaction in fetched {
            guard let old = storedById[ExactKey(transaction.transactionId)] else {
                outcome.added.append(transaction.transactionId)
                continue
            }
            if Self.sameState(old, old.merged(with: transaction)) { outcome.confirmed.append(transaction.transactionId) } else { outcome.changed.append(transaction.transactionId) }
        }
        outcome.renewalInfo = renewals.contains { renewal in !stored.renewals.contains { RenewalInfo.isSame($0, as: renewal) } }
        if !dryRun { try service.applyMigrated(PurchaseHistory(transactions: fetched, renewals: renewals), environment: environment, originalTransactionId: original) }
        return outcome
    }

    /// Whether two copies of a transaction give the rules the same state (whatever signed them).
    private static func sameState(_ a: Transaction, _ b: Transaction) -> Bool {
        a.productId.sameBytes(as: b.productId) && a.purchase == b.purchase && a.expires == b.expires && a.countedCancellation == b.countedCancellation
            && a.isUpgraded == b.isUpgraded && a.isTrial == b.isTrial && a.isIntroductoryOffer == b.isIntroductoryOffer && a.offer == b.offer
    }
}
