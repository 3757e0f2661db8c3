public import Masthead
import MastheadClock
import MastheadCrypto
import MastheadFormats
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
    /// The writer thread committing in groups.
    let writer: CommitQueue
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
    /// The download check's answers, per user.
    private let cache: HistoryCache
    /// Issues served, consent and refund requests answered with consumption information.
    let consumption: ConsumptionReporting
    /// How many gift codes each user may try, on this instance.
    let redemptionLimiter = RedemptionLimiter()
    /// The threads delivering the outbox, their counters and log.
    let outbound = OutboundWorkers()
    /// The thread writing the events time made (``startSweepingEntitlementEvents()``).
    let eventSweeper = PeriodicThread(name: "webhook-sweeper")
    /// Google Play's client and push verifier, when `googlePlayPackageName` is set.
    let googlePlay: GooglePlayConnection?

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
        googlePlay = configuration.googlePlayEnabled ? try GooglePlayConnection(configuration: configuration) : nil
        // With the outbox in use, every write transaction takes its lock first (see CommitQueue).
        let outboxInUse = !configuration.webhookURLs.isEmpty || !configuration.forwardNotificationsTo.isEmpty
        writer = try CommitQueue(
            open: openStore, maxBatch: configuration.maxCommitBatch, origin: Int64.random(in: 1...Int64.max), locksOutboxFirst: outboxInUse)
        let readStore = try openStore()
        // The counter first: whatever commits after it is read again by the first answer.
        commits = try readStore.commitCounter()
        seenCommits = Atomic(commits?.value ?? 0)
        cache = HistoryCache(maxUsers: configuration.maxCachedUsers, maxCheckBytes: configuration.maxCachedCheckBytes)
        consumption = ConsumptionReporting(
            enabled: configuration.consumptionInformation, refundPreference: configuration.refundPreference.preference,
            sampleContentProvided: configuration.sampleContentProvided)
        let position = try readStore.changeLogPosition()
        catalogState = Mutex(catalog.publishing(try readStore.publishedIssues()))
        reader = Mutex(Reader(store: readStore, changeLogPosition: position))
        installEntitlementEvents()
    }

    /// Commits what is queued, makes the database file hold every commit (SQLite's write-ahead
    /// log checkpointed and truncated, so a copy of the `.sqlite` file alone is complete) and
    /// closes the writer's connection. The reader's connection, which holds no snapshot between
    /// requests, closes when the service is released (the last connection: SQLite then removes the
    /// empty `-wal` and `-shm` files). The threads sweeping for events, sending consumption
    /// information, acknowledging Google Play purchases and delivering the outbox stop first,
    /// after the pass or send under way.
    /// - Returns: why the checkpoint failed (every commit is still safe in the write-ahead log:
    ///   keep the `-wal` file with the database), or nil.
    @discardableResult
    public func close() -> StorageError? {
        consumption.stop()
        eventSweeper.stop()
        googlePlay?.acknowledgements.stop()
        outbound.stop()
        return writer.close()
    }

    /// The catalog in force, with the issues published through the API by any process.
    public var catalog: Catalog {
        catchUp()
        return catalogState.withLock { $0 }
    }

    /// The catalog as this process last merged it, without looking for other processes' commits:
    /// for the writer thread, which must not wait for the reader's connection mid-transaction.
    var catalogAsMerged: Catalog { catalogState.withLock { $0 } }

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
    func republish(_ issues: [(publicationId: String, issue: Issue)]) {
        catalogState.withLock { catalog in catalog = catalog.publishing(issues) }
        // Cached answers were computed against the previous catalog.
        cache.invalidateAnswers()
    }

    // MARK: Reading

    /// A user's purchase history, read from the database (the cache keeps none), or nil for a user
    /// never seen: one statement answers both from the user's stored history
    /// (``StoreReader/knownUserHistory(_:)``); without one, the tables are read in a snapshot.
    func history(forUser userId: String) throws -> PurchaseHistory? {
        catchUp()
        switch try reader.withLock({ reader throws(StorageError) in try reader.store.knownUserHistory(userId) }) {
        case .unknownUser: return nil
        case .stored(let history): return history
        case .notStored: return try readKnownUser(userId) { store in try store.historyFromTables(forUser: userId) }
        }
    }

    /// What `read` answers about a user, read from the database in one snapshot (so it includes
    /// what other processes committed), or nil for a user never seen.
    func readKnownUser<Value: Sendable>(_ userId: String, _ read: @Sendable (any EntitlementStore) throws -> Value) throws -> Value? {
        try reader.withLock { reader throws -> Value? in
            let store = reader.store
            return try store.readSnapshot { () throws -> Value? in
                guard try store.userExists(userId) else { return nil }
                return try read(store)
            }
        }
    }

    /// Whether the connection listening for other instances' commits (PostgreSQL) is up; nil on
    /// SQLite, which has none (the `masthead_change_notifications_up` metric). While it is down,
    /// the change log is read before every answer.
    var changeNotificationsUp: Bool? { commits?.isListening }

    /// How many users the answer cache holds (the `masthead_cached_users` metric).
    var cachedUserCount: Int { cache.userCount }

    /// The heap bytes the answer cache's check bodies take (the `masthead_cached_check_bytes` metric).
    var cachedCheckBytes: Int { cache.checkBytes }

    /// One user's entitlement to one publication (the download check's question): what deciding
    /// and explaining an issue reads, at least (``KeptEntitlement``).
    ///
    /// The last answer per publication and environment is kept in the cache (for a user the store
    /// knows: ``KeptEntitlement``) and reused while the as-of instant stays inside its stable range
    /// (the answer is then the same by construction); any write for the user, or a catalog change,
    /// drops it. A miss reads the user's history from the store and answers the whole entitlement.
    func entitlement(forUser userId: String, publicationId: String, at: Instant, environment: Environment) throws -> PublicationEntitlement? {
        catchUp()
        let user = ExactKey(userId)
        let key = HistoryCache.AnswerKey(publicationId: ExactKey(publicationId), environment: environment)
        let (cached, epoch) = cache.answer(user, key)
        if let cached, cached.stable.contains(at) { return cached.asOf(at) }
        // Read after the epoch: a catalog change bumps the epoch after replacing the catalog.
        let catalog = self.catalog
        guard let publication = catalog.publication(publicationId) else { return nil }
        let history = try history(forUser: userId)
        let answer = EntitlementEngine(catalog: catalog).evaluate(history ?? PurchaseHistory(), publication: publication, at: at, environment: environment)
        if history != nil { cache.put(KeptEntitlement(answer), for: user, key, at: epoch) }
        return answer
    }

    /// A download check's answer: its JSON body, whether it answers the issue readable, and the
    /// code of its main reason (what the gate answers).
    struct CheckAnswer {
        var body: [UInt8]
        var readable: Bool
        var reason: String
    }

    /// The download check's answer for one issue: `write` renders its body from the user's
    /// entitlement to the publication and says where the `at` value lies in it. A body written
    /// earlier is reused, with the new instant put in, while the instant stays inside the stable
    /// range of the answer it came from (every other byte is then the same); any write for the
    /// user, or a catalog change, drops it. Nil when the catalog has no such publication, or
    /// `write` finds no such issue.
    ///
    /// A readable answer is noted as served (consumption information, when it is on) once per
    /// cached body: the answers reusing it cost no more.
    func checkAnswer(
        forUser userId: String, publicationId: String, issueId: String, at: Instant, environment: Environment,
        write: (PublicationEntitlement) -> (body: [UInt8], at: Range<Int>, readable: Bool, reason: String)?
    ) throws -> CheckAnswer? {
        catchUp()
        let user = ExactKey(userId)
        let key = HistoryCache.CheckKey(publicationId: ExactKey(publicationId), environment: environment, issueId: ExactKey(issueId))
        let (cached, epoch) = cache.check(user, key)
        if let cached, cached.stable.contains(at) {
            if cached.readable && !cached.served && noteServed(userId: userId, publicationId: publicationId, issueId: issueId) {
                cache.markServed(user, key)
            }
            return CheckAnswer(body: cached.body(at: at), readable: cached.readable, reason: cached.reason)
        }
        guard let entitlement = try entitlement(forUser: userId, publicationId: publicationId, at: at, environment: environment),
            let written = write(entitlement)
        else { return nil }
        var check = HistoryCache.Check(
            stable: entitlement.stable, body: written.body, at: written.at, readable: written.readable, reason: written.reason)
        check.served = written.readable && noteServed(userId: userId, publicationId: publicationId, issueId: issueId)
        cache.put(check, for: user, key, at: epoch)
        return CheckAnswer(body: written.body, readable: written.readable, reason: written.reason)
    }

    /// Drops the cached histories of the users a committed write of this process changed, and
    /// wakes the outbox's delivery threads (a change may have enqueued events).
    func invalidate(_ changes: [Change]) {
        cache.invalidate(changes)
        if !changes.isEmpty { outbound.wakeUp() }
    }

    /// Notes a write's outcome for `/health` and the metrics: a storage failure (not a write the
    /// store's policy refused: a receipt or app account token in use, a notification delivered
    /// again, a grant id another user holds) marks the database as not writable until a write succeeds.
    func noteWrite(_ error: (any Error)?) {
        guard let error else {
            writeFailure.withLock { $0 = nil }
            return
        }
        switch error as? StorageError {
        case .receiptAlreadyInUse, .appAccountTokenInUse, .notificationAlreadyRecorded, .grantBelongsToAnotherUser: return
        default: break
        }
        if case .belongsToAnotherUser? = error as? GooglePlayServiceError { return }
        metrics.recordStoreError()
        writeFailure.withLock { $0 = "\(error)" }
    }

    /// Commits `work`, which changes nothing the caches hold, through the writer, waiting for it,
    /// and answers what it answered; its outcome noted for `/health` (the outbox's claims and
    /// outcomes, the Set App Account Token calls' claims and outcomes).
    func answerWrite<Answer: Sendable>(_ work: @escaping @Sendable (any EntitlementStore) throws -> Answer) throws -> Answer {
        do {
            let answer = try writer.answer(work)
            noteWrite(nil)
            return answer
        } catch {
            noteWrite(error)
            throw error
        }
    }

    /// Queues `work` for the next commit; once committed, the caches drop what it changed and
    /// `completion` gets what it answered (or why it was not stored).
    func write<Value: Sendable>(
        _ work: @escaping @Sendable (any EntitlementStore) throws -> (value: Value, changes: [Change]),
        completion: @escaping @Sendable (Result<Value, any Error>) -> Void
    ) {
        writer.submit([writing(work, completion: completion)])
    }

    /// `work` and `completion` as the writer's job: once committed, the caches drop what it changed
    /// and `completion` gets what it answered (or why it was not stored).
    func writing<Value: Sendable>(
        _ work: @escaping @Sendable (any EntitlementStore) throws -> (value: Value, changes: [Change]),
        completion: @escaping @Sendable (Result<Value, any Error>) -> Void
    ) -> (work: @Sendable (any EntitlementStore) throws -> [Change], completion: @Sendable (Result<[Change], any Error>) -> Void) {
        let answer = Mutex<Value?>(nil)
        let job: @Sendable (any EntitlementStore) throws -> [Change] = { store in
            let (value, changes) = try work(store)
            answer.withLock { $0 = value }
            return changes
        }
        return (job, { [self] result in
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
        })
    }
}
