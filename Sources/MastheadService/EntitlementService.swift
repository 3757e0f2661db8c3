import Foundation
public import Masthead
import MastheadClock
import MastheadCrypto
public import MastheadFormats
public import MastheadStorage
import Synchronization

/// The service's state and operations, independent of HTTP: the catalog (with issues published
/// through the API), the store (one writer thread committing in groups, one reader connection,
/// both through ``EntitlementStore``), and a cache of users' purchase histories for the download check.
///
/// Other processes may use the same database (a second `masthead serve`, `masthead refresh`).
/// Every write records what it changed in the store's change log, in its own transaction; before
/// answering from the cache or the catalog, the service compares the store's commit counter with the
/// one it last saw and, when anyone committed since, reads the log's new entries written by others
/// and drops what they changed (its own writes it has dropped already).
public final class EntitlementService: Sendable {
    public let configuration: ServiceConfiguration
    let clock: @Sendable () -> Instant
    let metrics = ServiceMetrics()
    private let catalogState: Mutex<Catalog>
    private let writer: CommitQueue
    /// The reader connection, and where its reading of the change log has got to.
    let reader: Mutex<Reader>
    struct Reader {
        let store: any EntitlementStore
        var changeLogPosition: Int64
    }
    /// The store's commit counter (SQLite's shared-memory counter, or PostgreSQL's notifications
    /// counted by a listening connection; nil, or a nil value, when unavailable: the change log is
    /// then read before every answer) and its value when the log was last read.
    private let commits: StoreCommitCounter?
    private let seenCommits: Atomic<UInt32>
    /// Verifies the chains and signatures of signed data; its cache of verified chains is shared
    /// by every request.
    let signatureVerifier: JWSVerifier
    /// Why the last write failed, for `/health`; nil once a write succeeds.
    private let writeFailure = Mutex<String?>(nil)
    /// Users' histories and the answers computed from them.
    private let cache: HistoryCache

    /// Opens the configuration's database, SQLite or PostgreSQL (applying migrations), and merges
    /// the issues published through the API into `catalog`.
    public convenience init(configuration: ServiceConfiguration, catalog: Catalog, clock: @escaping @Sendable () -> Instant) throws {
        let location = configuration.database
        try self.init(configuration: configuration, catalog: catalog, clock: clock) { try location.open() }
    }

    /// Opens two connections with `openStore`, a writer and a reader (the first applies the
    /// migrations), and merges the issues published through the API into `catalog`.
    public init(
        configuration: ServiceConfiguration, catalog: Catalog, clock: @escaping @Sendable () -> Instant,
        openStore: @escaping @Sendable () throws -> any EntitlementStore
    ) throws {
        self.configuration = configuration
        self.clock = clock
        signatureVerifier = try configuration.signatureVerifier()
        writer = try CommitQueue(open: openStore, maxBatch: configuration.maxCommitBatch, origin: Int64.random(in: 1...Int64.max))
        let readStore = try openStore()
        // The counter first: whatever commits after it is read again by the first answer.
        commits = try readStore.commitCounter()
        seenCommits = Atomic(commits?.value ?? 0)
        cache = HistoryCache(maxUsers: configuration.maxCachedUsers)
        let position = try readStore.changeLogPosition()
        catalogState = Mutex(EntitlementService.merging(try readStore.publishedIssues(), into: catalog))
        reader = Mutex(Reader(store: readStore, changeLogPosition: position))
    }

    private static func merging(_ issues: [(publicationId: String, issue: Issue)], into catalog: Catalog) -> Catalog {
        var merged = catalog
        for (publicationId, issue) in issues {
            if let publication = merged.publication(publicationId) { merged = merged.replacing(publication.upserting(issue)) }
        }
        return merged
    }

    /// Commits what is queued, makes the database file hold every commit (SQLite's write-ahead
    /// log checkpointed and truncated, so a copy of the `.sqlite` file alone is complete) and
    /// closes the writer's connection. The reader's connection, which holds no snapshot between
    /// requests, closes when the service is released (the last connection: SQLite then removes the
    /// empty `-wal` and `-shm` files).
    /// - Returns: why the checkpoint failed (every commit is still safe in the write-ahead log:
    ///   keep the `-wal` file with the database), or nil.
    @discardableResult
    public func close() -> StorageError? { writer.close() }

    /// The catalog in force, with the issues published through the API by any process.
    public var catalog: Catalog {
        catchUp()
        return catalogState.withLock { $0 }
    }

    /// Why the database cannot be written, when the last write failed (until one succeeds).
    var writeProblem: String? { writeFailure.withLock { $0 } }

    // MARK: Other processes

    /// Drops what other processes changed since the last look: cached histories of the users
    /// they wrote for, and the catalog's published issues when they published one. One
    /// shared-memory load when nobody has committed since (the download check's case).
    private func catchUp() {
        if let counted = commits?.value, counted == seenCommits.load(ordering: .acquiring) { return }
        reader.withLock { reader in
            // Read before the log: a commit after this is looked for again by the next answer.
            let counted = commits?.value
            if let counted, counted == seenCommits.load(ordering: .relaxed) { return }
            do {
                let read = try reader.store.changes(after: reader.changeLogPosition, notFrom: writer.origin)
                let users = read.changes.compactMap { change -> String? in
                    if case .user(let userId) = change { return userId }
                    return nil
                }
                let issues = read.missedSome || users.count < read.changes.count
                if issues { try republish(reader.store.publishedIssues()) }
                if read.missedSome { cache.removeAll() } else { cache.invalidate(users: users) }
                reader.changeLogPosition = read.position
                if let counted { seenCommits.store(counted, ordering: .releasing) }
            } catch {
                // What changed cannot be told: nothing cached is trusted, and the next answer looks again.
                cache.removeAll()
            }
        }
    }

    /// Merges published issues into the catalog and drops the answers computed against the previous one.
    private func republish(_ issues: [(publicationId: String, issue: Issue)]) {
        catalogState.withLock { catalog in catalog = EntitlementService.merging(issues, into: catalog) }
        // Cached answers were computed against the previous catalog.
        cache.invalidateAnswers()
    }

    // MARK: Reading

    /// A user's purchase history, or nil for a user never seen.
    func history(forUser userId: String) throws -> PurchaseHistory? {
        catchUp()
        let user = ExactKey(userId)
        let epoch: HistoryCache.Epoch
        switch cache.lookup(user) {
        case .cached(let history): return history
        case .missing(let since): epoch = since
        }
        let loaded = try reader.withLock { reader throws -> PurchaseHistory? in
            let store = reader.store
            return try store.readSnapshot { () throws -> PurchaseHistory? in
                guard try store.userExists(userId) else { return nil }
                return try store.history(forUser: userId)
            }
        }
        guard let loaded else { return nil }
        cache.put(loaded, for: user, at: epoch)
        return loaded
    }

    /// Whether the connection listening for other instances' commits (PostgreSQL) is up; nil on
    /// SQLite, which has none (the `masthead_change_notifications_up` metric). While it is down,
    /// the change log is read before every answer.
    var changeNotificationsUp: Bool? { commits?.isListening }

    /// How many users the answer cache holds (the `masthead_cached_users` metric).
    var cachedUserCount: Int { cache.userCount }

    /// One user's entitlement to one publication (the download check's question).
    ///
    /// The last answer per publication and environment is kept with the user's cached history
    /// and reused while the as-of instant stays inside its stable range (the answer is then the
    /// same by construction); any write for the user, or a catalog change, drops it.
    func entitlement(forUser userId: String, publicationId: String, at: Instant, environment: Environment) throws -> PublicationEntitlement? {
        catchUp()
        let user = ExactKey(userId)
        let key = HistoryCache.AnswerKey(publicationId: ExactKey(publicationId), environment: environment)
        let (cached, epoch) = cache.answer(user, key)
        if let cached, cached.stable.contains(at) { return cached.asOf(at) }
        // Read after the epoch: a catalog change bumps the epoch after replacing the catalog.
        let catalog = self.catalog
        guard let publication = catalog.publication(publicationId) else { return nil }
        let history = try history(forUser: userId) ?? PurchaseHistory()
        let answer = EntitlementEngine(catalog: catalog).evaluate(history, publication: publication, at: at, environment: environment)
        cache.put(answer, for: user, key, at: epoch)
        return answer
    }

    /// The download check's answer body for one issue: `write` renders it from the user's
    /// entitlement to the publication and says where the `at` value lies in it. A body written
    /// earlier is reused, with the new instant put in, while the instant stays inside the stable
    /// range of the answer it came from (every other byte is then the same); any write for the
    /// user, or a catalog change, drops it. Nil when the catalog has no such publication, or
    /// `write` finds no such issue.
    func checkBody(
        forUser userId: String, publicationId: String, issueId: String, at: Instant, environment: Environment,
        write: (PublicationEntitlement) -> (body: [UInt8], at: Range<Int>)?
    ) throws -> [UInt8]? {
        catchUp()
        let user = ExactKey(userId)
        let key = HistoryCache.CheckKey(publicationId: ExactKey(publicationId), environment: environment, issueId: ExactKey(issueId))
        let (cached, epoch) = cache.check(user, key)
        if let cached, cached.stable.contains(at) { return cached.body(at: at) }
        guard let entitlement = try entitlement(forUser: userId, publicationId: publicationId, at: at, environment: environment),
            let written = write(entitlement)
        else { return nil }
        let check = HistoryCache.Check(stable: entitlement.stable, head: Array(written.body[..<written.at.lowerBound]), tail: Array(written.body[written.at.upperBound...]))
        cache.put(check, for: user, key, at: epoch)
        return written.body
    }

    /// Drops the cached histories of the users a committed write of this process changed.
    private func invalidate(_ changes: [Change]) { cache.invalidate(changes) }

    /// The subscriptions expiring within the window from now, for the polling job.
    func refreshDue(within milliseconds: Int64) throws -> [RefreshDue] {
        let now = clock()
        return try reader.withLock { reader in try reader.store.refreshDue(from: now, to: now.adding(milliseconds: milliseconds)) }
    }

    /// Notes a write's outcome for `/health` and the metrics: a storage failure (not a write the
    /// store's policy refused: a receipt or app account token in use, a notification delivered
    /// again) marks the database as not writable until a write succeeds.
    private func noteWrite(_ error: (any Error)?) {
        guard let error else {
            writeFailure.withLock { $0 = nil }
            return
        }
        switch error as? StorageError {
        case .receiptAlreadyInUse, .appAccountTokenInUse, .notificationAlreadyRecorded: return
        default: break
        }
        metrics.recordStoreError()
        writeFailure.withLock { $0 = "\(error)" }
    }

    /// Queues `work` for the next commit; once committed, the caches drop what it changed and
    /// `completion` gets what it answered (or why it was not stored).
    func write<Value: Sendable>(
        _ work: @escaping @Sendable (any EntitlementStore) throws -> (value: Value, changes: [Change]),
        completion: @escaping @Sendable (Result<Value, any Error>) -> Void
    ) {
        let answer = Mutex<Value?>(nil)
        writer.submit({ store in
            let (value, changes) = try work(store)
            answer.withLock { $0 = value }
            return changes
        }) { [self] result in
            switch result {
            case .success(let changes):
                noteWrite(nil)
                invalidate(changes)
                // Set by the job, which succeeded.
                completion(.success(answer.withLock { $0! }))
            case .failure(let error):
                noteWrite(error)
                completion(.failure(error))
            }
        }
    }

    // MARK: Writing

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
    func postPurchases(
        userId: String, transactions: [Transaction], renewals: [RenewalInfo], latestReceipt: String?, deadline: Int64? = nil,
        completion: @escaping @Sendable (ReceiptOutcome) -> Void
    ) {
        let storing = Self.storing(transactions, renewals, for: userId, latestReceipt: latestReceipt, restore: configuration.restore, now: clock())
        let job: @Sendable (any EntitlementStore) throws -> [Change] = { store in
            if let deadline, SystemClock.monotonicMilliseconds() >= deadline {
                throw PurchaseError.restoreTimedOut("its write was not begun in time")
            }
            return try storing(store)
        }
        writer.submit(job) { [self] result in
            switch result {
            case .success(let changes):
                noteWrite(nil)
                invalidate(changes)
                do { completion(.stored(try history(forUser: userId) ?? PurchaseHistory())) } catch { completion(.storedUnread(error)) }
            case .failure(let error):
                noteWrite(error)
                completion(.failed(error))
            }
        }
    }

    /// Stores users' purchases (a receipt's, or verified signed ones) as posted ones (each saved,
    /// its subscriptions linked to its user with the configured restore behaviour, the change
    /// logged), queued at once so that the group commit writes them in as few transactions as
    /// `maxCommitBatch` allows; returns once every one is committed or refused, with each one's
    /// failure (nil when stored). Histories are not read back.
    public func store(_ purchases: [(userId: String, history: PurchaseHistory, latestReceipt: String?)]) -> [(any Error)?] {
        let now = clock()
        let failures = Mutex([(any Error)?](repeating: nil, count: purchases.count))
        let committed = DispatchGroup()
        for (index, posted) in purchases.enumerated() {
            committed.enter()
            let job = Self.storing(
                posted.history.transactions, posted.history.renewals, for: posted.userId, latestReceipt: posted.latestReceipt, restore: configuration.restore,
                now: now)
            writer.submit(job) { [self] result in
                switch result {
                case .success(let changes):
                    noteWrite(nil)
                    invalidate(changes)
                case .failure(let error):
                    noteWrite(error)
                    failures.withLock { $0[index] = error }
                }
                committed.leave()
            }
        }
        committed.wait()
        return failures.withLock { $0 }
    }

    /// The write of a posted receipt (or signed transactions): saved, its subscriptions linked to
    /// the user (applying `restore`); answers the users whose histories it changed.
    private static func storing(
        _ transactions: [Transaction], _ renewals: [RenewalInfo], for userId: String, latestReceipt: String?, restore: RestoreBehaviour,
        now: Instant
    ) -> @Sendable (any EntitlementStore) throws -> [Change] {
        { store in
            try store.save(transactions: transactions, renewals: renewals)
            let previousOwners = try store.link(userId: userId, transactions: transactions, latestReceipt: latestReceipt, restore: restore, now: now)
            return ([userId] + previousOwners).map(Change.user)
        }
    }

    /// What posting a notification came to.
    package enum NotificationOutcome: Sendable {
        /// Stored (and applied, when it could be read).
        case stored
        /// A notification with its `notificationUUID` was stored before: neither stored nor applied again.
        case alreadyStored
    }

    /// Stores a notification's raw body (with its V2 `subtype` and `notificationUUID`, when it has
    /// them) and everything it carries; `completion` runs after the commit. A notification whose
    /// uuid is stored already is neither stored nor applied again. Transactions of subscriptions no
    /// user has yet are kept and count once a receipt links them.
    func postNotification(
        _ notification: AppStoreNotification?, type: String, subtype: String?, uuid: String?, body: [UInt8],
        completion: @escaping @Sendable (Result<NotificationOutcome, any Error>) -> Void
    ) {
        let now = clock()
        let text = String(decoding: body, as: UTF8.self)
        submitNotification(type: type, completion: completion) { store in
            _ = try store.recordNotification(
                type: type, subtype: subtype, uuid: uuid, environment: notification?.environment,
                originalTransactionIds: notification?.originalTransactionIds ?? [], body: text, received: now)
            guard let notification else { return [] }
            try store.save(transactions: notification.transactions, renewals: notification.renewals)
            if let latest = notification.latestReceipt, !notification.originalTransactionIds.isEmpty {
                try store.recordLatestReceipt(latest, environment: notification.environment, originalTransactionIds: notification.originalTransactionIds)
            }
            return try store.users(linkedTo: notification.originalTransactionIds, environment: notification.environment).map(Change.user)
        }
    }

    /// Queues a notification's write; `completion` runs after the commit, with `.alreadyStored`
    /// when the store found its `notificationUUID` stored before.
    func submitNotification(
        type: String, completion: @escaping @Sendable (Result<NotificationOutcome, any Error>) -> Void,
        _ job: @escaping @Sendable (any EntitlementStore) throws -> [Change]
    ) {
        writer.submit(job) { [self] result in
            switch result {
            case .success(let changes):
                noteWrite(nil)
                metrics.recordNotification(type: type)
                invalidate(changes)
                completion(.success(.stored))
            case .failure(StorageError.notificationAlreadyRecorded):
                completion(.success(.alreadyStored))
            case .failure(let error):
                noteWrite(error)
                completion(.failure(error))
            }
        }
    }

    /// Publishes or corrects an issue of a catalog publication; it survives restarts.
    func publish(_ issue: Issue, in publicationId: String, completion: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        writer.submit({ store -> [Change] in
            try store.upsertIssue(publicationId: publicationId, issue: issue)
            return [.issue(publicationId: publicationId, issueId: issue.id)]
        }) { [self] result in
            switch result {
            case .success:
                noteWrite(nil)
                republish([(publicationId, issue)])
                completion(.success(()))
            case .failure(let error):
                noteWrite(error)
                completion(.failure(error))
            }
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

    /// Subscriptions expiring within the window, for `masthead refresh`.
    public func dueForRefresh(within milliseconds: Int64) throws -> [RefreshDue] { try refreshDue(within: milliseconds) }
}
