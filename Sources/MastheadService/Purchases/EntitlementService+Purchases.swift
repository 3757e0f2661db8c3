import Dispatch
public import Masthead
import MastheadClock
public import MastheadFormats
public import MastheadStorage
import Synchronization

/// Purchases: posted receipts and signed transactions, restores, the polling job's receipts, and
/// the subscriptions due for a refresh.
extension EntitlementService {
    /// What posting a receipt did.
    package enum ReceiptOutcome: Sendable {
        /// Committed; the user's history as read back after the commit.
        case stored(PurchaseHistory)
        /// Committed, but reading the history back failed (why): the write still stands.
        case storedUnread(any Error)
        /// Not stored (why).
        case failed(any Error)
    }

    /// Stores a verified receipt for a user, links its subscriptions (applying the restore
    /// behaviour) and answers with the user's history once committed.
    func postReceipt(userId: String, receipt: Receipt, latestReceipt: String?, completion: @escaping @Sendable (ReceiptOutcome) -> Void) {
        postPurchases(userId: userId, transactions: receipt.transactions, renewals: receipt.renewals, latestReceipt: latestReceipt, completion: completion)
    }

    /// Stores a user's transactions and renewal infos (a receipt's, or verified signed ones), links
    /// their subscriptions to the user (applying the restore behaviour) and answers with the
    /// user's history once committed.
    ///
    /// With a `deadline` (monotonic milliseconds), the write checks it when it runs, inside its
    /// transaction: past it, the write stores nothing and fails with
    /// ``PurchaseError/restoreTimedOut(_:)``.
    ///
    /// When the App Store Server API is configured, the same write queues a Set App Account Token
    /// call for each subscription linked whose signed data never carried an app account token
    /// (`carryingAppAccountToken` names those whose posted signed data did), when the user has
    /// one (``MastheadStorage/StoreWriter/queueAppAccountTokenUpdates(userId:subscriptions:now:)``);
    /// ``AppAccountTokenUpdater`` sends them later, never on this request.
    func postPurchases(
        userId: String, transactions: [Transaction], renewals: [RenewalInfo], latestReceipt: String?,
        carryingAppAccountToken: [(environment: Environment, originalTransactionId: String)] = [], deadline: Int64? = nil,
        completion: @escaping @Sendable (ReceiptOutcome) -> Void
    ) {
        let now = clock()
        let storing = Self.storing(transactions, renewals, for: userId, latestReceipt: latestReceipt, restore: configuration.restore, now: now)
        let owed = queuesAppAccountTokenUpdates ? Self.withoutAppAccountToken(transactions, carrying: carryingAppAccountToken) : []
        write({ store in
            if let deadline, SystemClock.monotonicMilliseconds() >= deadline {
                throw PurchaseError.restoreTimedOut("its write was not begun in time")
            }
            let changes = try storing(store)
            let queued = owed.isEmpty ? 0 : try store.queueAppAccountTokenUpdates(userId: userId, subscriptions: owed, now: now).count
            return (queued, changes)
        }) { [self] result in
            switch result {
            case .success(let queued):
                if queued > 0 { metrics.recordAppAccountTokenUpdates("queued", count: queued) }
                do { completion(.stored(try history(forUser: userId) ?? PurchaseHistory())) } catch { completion(.storedUnread(error)) }
            case .failure(let error):
                completion(.failed(error))
            }
        }
    }

    /// Stores users' purchases (a receipt's, or verified signed ones) as posted ones (each saved,
    /// its subscriptions linked to its user with the configured restore behaviour, the change
    /// logged), with the publisher's grants the history carries (each replacing the user's grant
    /// of its id, in the same write: a grant id another user holds refuses the whole entry with
    /// ``StorageError/grantBelongsToAnotherUser(grantId:userId:)``), queued at once so that the
    /// group commit writes them in as few transactions as `maxCommitBatch` allows; returns once
    /// every one is committed or refused, with each one's failure (nil when stored). Histories
    /// are not read back.
    public func store(_ purchases: [(userId: String, history: PurchaseHistory, latestReceipt: String?)]) -> [(any Error)?] {
        let now = clock()
        let failures = Mutex([(any Error)?](repeating: nil, count: purchases.count))
        let committed = DispatchGroup()
        let jobs = purchases.enumerated().map { index, posted in
            committed.enter()
            let purchases = Self.storing(
                posted.history.transactions, posted.history.renewals, for: posted.userId, latestReceipt: posted.latestReceipt, restore: configuration.restore,
                now: now)
            let grants = posted.history.grants
            return writing({ store in
                let changes = try purchases(store)
                for grant in grants { _ = try store.putGrant(grant, userId: posted.userId, now: now) }
                return ((), changes)
            }) { result in
                if case .failure(let error) = result { failures.withLock { $0[index] = error } }
                committed.leave()
            }
        }
        writer.submit(jobs)
        committed.wait()
        return failures.withLock { $0 }
    }

    /// The write of a posted receipt (or signed transactions): saved, its subscriptions linked to
    /// the user (applying `restore`); answers the users whose histories it changed.
    static func storing(
        _ transactions: [Transaction], _ renewals: [RenewalInfo], for userId: String, latestReceipt: String?, restore: RestoreBehaviour,
        now: Instant
    ) -> @Sendable (any EntitlementStore) throws -> [Change] {
        { store in
            try store.save(transactions: transactions, renewals: renewals)
            let previousOwners = try store.link(userId: userId, transactions: transactions, latestReceipt: latestReceipt, restore: restore, now: now)
            return ([userId] + previousOwners).map(Change.user)
        }
    }

    /// Applies a receipt fetched from Apple by the polling job: stored and linked like a posted one
    /// when the subscription has a user, stored unlinked otherwise.
    public func applyPolled(_ receipt: Receipt, userId: String?, latestReceipt: String?) throws {
        let now = clock()
        try applyPolledWrite { store -> [Change] in
            try store.save(transactions: receipt.transactions, renewals: receipt.renewals)
            let originals = Set(receipt.transactions.map { ExactKey($0.originalTransactionId) }).map(\.text)
            if let latestReceipt { try store.recordLatestReceipt(latestReceipt, environment: receipt.environment, originalTransactionIds: originals) }
            guard let userId else { return try store.users(linkedTo: originals, environment: receipt.environment).map(Change.user) }
            let previousOwners = try store.link(userId: userId, transactions: receipt.transactions, latestReceipt: latestReceipt, restore: .transfer, now: now)
            return ([userId] + previousOwners).map(Change.user)
        }
    }

    /// Commits a polling job's write, waiting for it; then the caches drop what it changed.
    func applyPolledWrite(_ work: @escaping @Sendable (any EntitlementStore) throws -> [Change]) throws {
        let changes: [Change]
        do {
            changes = try writer.perform(work)
        } catch {
            noteWrite(error)
            throw error
        }
        noteWrite(nil)
        invalidate(changes)
    }

    /// The subscriptions expiring within the window from now, for the polling job.
    func refreshDue(within milliseconds: Int64) throws -> [RefreshDue] {
        let now = clock()
        return try reader.withLock { reader in try reader.store.refreshDue(from: now, to: now.adding(milliseconds: milliseconds)) }
    }

    /// Subscriptions expiring within the window, for `masthead refresh`.
    public func dueForRefresh(within milliseconds: Int64) throws -> [RefreshDue] { try refreshDue(within: milliseconds) }
}
