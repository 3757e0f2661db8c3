import Dispatch
import Foundation
import MastheadStorage
import Synchronization

/// The single writer: a thread that owns the write connection (any ``EntitlementStore``) and
/// commits queued jobs together.
///
/// Jobs that arrive while a commit is running wait and go into the next one, so many concurrent
/// requests share one `fsync` (group commit). A batch runs first in one transaction as it is;
/// when a job throws, that transaction is rolled back and the batch runs again with each job in
/// a savepoint: the one that throws is rolled back alone and its caller gets the error, the
/// others still commit. Callers are told
/// only after `COMMIT` returned, so an acknowledged write is on disk.
///
/// Every job answers what it changed; the queue records that in the change log right after the
/// job, in its transaction or savepoint (so exactly the committed writes are logged, under this
/// writer's ``origin``), and prunes the log in each transaction. Other processes on the database
/// read it to update their caches. A hook installed with ``install(afterJob:)`` runs there too,
/// right after the change log is written (and with it each changed user's stored history, which
/// the hook then reads): its writes commit or roll back with the job's.
///
/// With ``locksOutboxFirst`` every transaction takes the outbox's lock
/// (``EntitlementReportStore/lockReporting()``) before anything else: the jobs' writes to the
/// outbox and the hook's lock then come in one order in every instance of the database, which
/// cannot deadlock (on PostgreSQL; nothing on SQLite, whose writer excludes every other already).
final class CommitQueue: Sendable {
    /// Runs after a job, in its transaction or savepoint, given the writer's store and what the job changed.
    typealias AfterJob = @Sendable (any EntitlementStore, [Change]) throws -> Void

    /// The installed hook, held in a struct: a closure held by a `Mutex` itself is wrapped in two
    /// more reabstraction thunks each time `withLock` hands it out, so that calling it after a
    /// million commits would go through two million thunks (and then overflow the stack).
    private struct Hook: Sendable {
        let run: AfterJob
    }

    private struct Job: Sendable {
        let run: @Sendable (any EntitlementStore) throws -> [Change]
        let done: @Sendable (Result<[Change], any Error>) -> Void
    }

    /// This writer's id in the change log.
    let origin: Int64

    private let jobs = Mutex<(pending: [Job], closed: Bool)>(([], false))
    private let wake = DispatchSemaphore(value: 0)
    private let stopped = DispatchSemaphore(value: 0)
    /// Why the checkpoint at close failed, if it did.
    private let checkpointFailure = Mutex<StorageError?>(nil)
    private let maxBatch: Int
    /// Whether each transaction takes the outbox's lock first (the outbox is in use).
    let locksOutboxFirst: Bool
    private let afterJob = Mutex<Hook?>(nil)
    let commits = Atomic<Int>(0)
    let failures = Atomic<Int>(0)

    /// Opens the store with `open` on the writer thread (applying migrations); throws what opening threw.
    /// Each transaction takes the outbox's lock first when `locksOutboxFirst`.
    init(open: @escaping @Sendable () throws -> any EntitlementStore, maxBatch: Int, origin: Int64, locksOutboxFirst: Bool = false) throws {
        self.maxBatch = maxBatch
        self.locksOutboxFirst = locksOutboxFirst
        self.origin = origin
        let opened = DispatchSemaphore(value: 0)
        let failure = Mutex<(any Error)?>(nil)
        let thread = Thread { [self] in
            var store: (any EntitlementStore)?
            do {
                store = try open()
            } catch {
                failure.withLock { $0 = error }
            }
            opened.signal()
            if let writer = store {
                run(writer)
                do throws(StorageError) { try writer.checkpoint() } catch { checkpointFailure.withLock { $0 = error } }
            }
            // Closed before `close()` returns: a process that ends right after leaves no open writer.
            store = nil
            stopped.signal()
        }
        thread.name = "store-writer"
        thread.start()
        opened.wait()
        if let error = failure.withLock({ $0 }) { throw error }
    }

    /// Queues `work` for the next commit; `completion` runs on the writer thread after the commit,
    /// with what `work` said it changed. `work` may run twice (its batch runs again when another
    /// job of it throws), so it must do nothing but its writes to the store.
    func submit(_ work: @escaping @Sendable (any EntitlementStore) throws -> [Change], completion: @escaping @Sendable (Result<[Change], any Error>) -> Void) {
        submit([(work, completion)])
    }

    /// Queues several jobs at once, in their order, as ``submit(_:completion:)`` queues one: the
    /// writer takes none of them before all are queued, so they go into as few transactions as
    /// `maxBatch` allows rather than into a commit per job the writer happened to wake for.
    func submit(_ submissions: [(work: @Sendable (any EntitlementStore) throws -> [Change], completion: @Sendable (Result<[Change], any Error>) -> Void)]) {
        let accepted = jobs.withLock { state -> Bool in
            guard !state.closed else { return false }
            state.pending.append(contentsOf: submissions.map { Job(run: $0.work, done: $0.completion) })
            return true
        }
        if accepted {
            wake.signal()
        } else {
            for submission in submissions { submission.completion(.failure(StorageError.closed)) }
        }
    }

    /// Runs `work` in the next commit and waits for it; answers what it changed.
    func perform(_ work: @escaping @Sendable (any EntitlementStore) throws -> [Change]) throws -> [Change] {
        let result = Mutex<Result<[Change], any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        submit(work) { outcome in
            result.withLock { $0 = outcome }
            done.signal()
        }
        done.wait()
        return try result.withLock { $0! }.get()
    }

    /// Runs `work`, which changes nothing the caches hold, in the next commit and waits for it;
    /// answers what `work` answered (the durable calls owed to Apple claim and close theirs so).
    func answer<Answer: Sendable>(_ work: @escaping @Sendable (any EntitlementStore) throws -> Answer) throws -> Answer {
        let answer = Mutex<Answer?>(nil)
        _ = try perform { store in
            let value = try work(store)
            answer.withLock { $0 = value }
            return []
        }
        return answer.withLock { $0! }
    }

    /// Runs `hook` after every job committed from the next batch on (replacing the one installed
    /// before); an error it throws fails the job as the job's own would.
    func install(afterJob hook: @escaping AfterJob) {
        afterJob.withLock { $0 = Hook(run: hook) }
    }

    /// Commits what is queued, checkpoints the store (``StoreWriter/checkpoint()``), then
    /// stops the writer and closes its connection.
    /// - Returns: why the checkpoint failed (the commits are safe in the write-ahead log), or nil.
    @discardableResult
    func close() -> StorageError? {
        jobs.withLock { $0.closed = true }
        wake.signal()
        stopped.wait()
        return checkpointFailure.withLock { $0 }
    }

    private func run(_ store: any EntitlementStore) {
        while true {
            wake.wait()
            while true {
                let (batch, closed) = jobs.withLock { state -> ([Job], Bool) in
                    let batch = Array(state.pending.prefix(maxBatch))
                    state.pending.removeFirst(batch.count)
                    return (batch, state.closed)
                }
                if batch.isEmpty {
                    if closed { return }
                    break
                }
                commit(batch, store)
            }
        }
    }

    private func commit(_ batch: [Job], _ store: any EntitlementStore) {
        let results: [Result<[Change], any Error>]
        let afterJob = self.afterJob.withLock { $0 }?.run
        do {
            results = try together(batch, store, afterJob) ?? separately(batch, store, afterJob)
            commits.add(1, ordering: .relaxed)
        } catch {
            failures.add(1, ordering: .relaxed)
            for job in batch { job.done(.failure(error)) }
            return
        }
        for (job, result) in zip(batch, results) { job.done(result) }
    }

    /// Commits the batch in one transaction without a savepoint per job (on PostgreSQL each costs
    /// two statements); nil when a job threw: the transaction is then rolled back, to be committed
    /// again by ``separately(_:_:_:)``.
    private func together(_ batch: [Job], _ store: any EntitlementStore, _ afterJob: AfterJob?) throws(StorageError) -> [Result<[Change], any Error>]? {
        var jobFailed = false
        do {
            return try store.inTransaction { () throws(StorageError) -> [Result<[Change], any Error>] in
                if locksOutboxFirst { try store.lockReporting() }
                var results: [Result<[Change], any Error>] = []
                results.reserveCapacity(batch.count)
                for job in batch {
                    do {
                        let changes = try job.run(store)
                        try store.recordChanges(changes, origin: origin)
                        try afterJob?(store, changes)
                        results.append(.success(changes))
                    } catch {
                        jobFailed = true
                        // Only rolls the transaction back: with `jobFailed` set, the error is not reported.
                        throw (error as? StorageError) ?? .closed
                    }
                }
                try store.pruneChangeLog()
                return results
            }
        } catch where jobFailed {
            return nil
        }
    }

    /// Commits the batch in one transaction, each job in a savepoint: one that throws is rolled
    /// back alone and answered its error, the others commit.
    private func separately(_ batch: [Job], _ store: any EntitlementStore, _ afterJob: AfterJob?) throws(StorageError) -> [Result<[Change], any Error>] {
        try store.inTransaction { () throws(StorageError) -> [Result<[Change], any Error>] in
            if locksOutboxFirst { try store.lockReporting() }
            var results: [Result<[Change], any Error>] = []
            results.reserveCapacity(batch.count)
            for job in batch {
                results.append(try store.inSavepoint { () throws -> [Change] in
                    let changes = try job.run(store)
                    try store.recordChanges(changes, origin: origin)
                    try afterJob?(store, changes)
                    return changes
                })
            }
            try store.pruneChangeLog()
            return results
        }
    }
}
