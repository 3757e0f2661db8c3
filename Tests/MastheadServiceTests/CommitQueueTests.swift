import Dispatch
import Foundation
import Masthead
@testable import MastheadService
import MastheadStorage
import MastheadTestSupport
import Synchronization
import Testing

/// The group commit: jobs queued while a commit runs go into the next transaction together; one
/// that throws is answered its error with its writes undone, and the others commit.
struct CommitQueueTests {
    struct Refused: Error {}

    static func publishing(_ issueId: String) -> @Sendable (any EntitlementStore) throws -> [Change] {
        { store in
            try store.upsertIssue(publicationId: "the-monthly", issue: Issue(id: issueId, published: Instant(milliseconds: 0)))
            return [.issue(publicationId: "the-monthly", issueId: issueId)]
        }
    }

    @Test(arguments: StoreBackend.tested) func jobThatThrows_inABatch_isUndoneAlone_andTheOthersCommit(backend: StoreBackend) throws {
        let location = try backend.freshDatabase(prefix: "commit-queue")
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: location + suffix) } }
        let queue = try CommitQueue(open: { try StoreLocation(location).open() }, maxBatch: 64, origin: 1)
        // The first job holds the writer until the others are queued: they make the next batch
        // together. (A batch may run twice, so its jobs wait on a group that stays open once left.)
        let started = DispatchSemaphore(value: 0)
        let queued = DispatchGroup()
        queued.enter()
        let outcomes = Mutex<[String: Result<[Change], any Error>]>([:])
        let done = DispatchGroup()
        func submit(_ name: String, _ work: @escaping @Sendable (any EntitlementStore) throws -> [Change]) {
            done.enter()
            queue.submit(work) { result in
                outcomes.withLock { $0[name] = result }
                done.leave()
            }
        }
        submit("first") { store in
            started.signal()
            queued.wait()
            return try Self.publishing("first")(store)
        }
        started.wait()
        submit("before", Self.publishing("before"))
        submit("refused") { store in
            _ = try Self.publishing("refused")(store)
            throw Refused()
        }
        submit("after", Self.publishing("after"))
        queued.leave()
        done.wait()
        queue.close()
        let results = outcomes.withLock { $0 }
        #expect(results.mapValues { (try? $0.get()) != nil } == ["first": true, "before": true, "refused": false, "after": true])
        #expect(throws: Refused.self) { try results["refused"]!.get() }
        #expect(queue.commits.load(ordering: .relaxed) == 2)
        let published = try StoreLocation(location).open(readOnly: true).publishedIssues().map(\.issue.id).sorted()
        #expect(published == ["after", "before", "first"])
        let logged = try StoreLocation(location).open(readOnly: true).changes(after: 0, notFrom: 0).changes
        #expect(Set(logged) == Set(["first", "before", "after"].map { Change.issue(publicationId: "the-monthly", issueId: $0) }))
    }

    /// Histories stored together (a batch of `masthead import`) are queued at once: the writer
    /// commits them in as few transactions as `maxCommitBatch` allows, not the first ones alone
    /// in a commit of their own because it woke while the others were being queued.
    @Test func historiesStoredTogether_areCommittedInTheFewestBatches() throws {
        let harness = try ServiceHarness { $0.maxCommitBatch = 50 }
        defer { harness.close() }
        let before = harness.service.writer.commits.load(ordering: .relaxed)
        let purchases = (0..<200).map { (userId: "reader-\($0)", history: PurchaseHistory(), latestReceipt: String?.none) }
        let failures = harness.service.store(purchases)
        #expect(failures.allSatisfy { $0 == nil })
        #expect(harness.service.writer.commits.load(ordering: .relaxed) == before + 4)
        #expect(try StoreLocation(harness.path).open(readOnly: true).userIds(after: nil, limit: 300).count == 200)
    }

    /// The hook runs through the same few frames after every commit: it is not wrapped again each
    /// time the writer takes it out (a closure held by a `Mutex` itself gained two reabstraction
    /// thunks per commit, so that the writer slowed with every commit and, after a few hundred
    /// thousand, overflowed its stack).
    @Test func afterJobHook_isCalledAtTheSameDepth_commitAfterCommit() throws {
        let location = try StoreBackend.sqlite.freshDatabase(prefix: "commit-queue-hook")
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: location + suffix) } }
        let queue = try CommitQueue(open: { try StoreLocation(location).open() }, maxBatch: 64, origin: 1)
        let depths = Mutex<[Int]>([])
        queue.install { _, _ in depths.withLock { $0.append(Thread.callStackReturnAddresses.count) } }
        for index in 0..<200 { _ = try queue.perform(Self.publishing("issue-\(index)")) }
        queue.close()
        let seen = depths.withLock { $0 }
        #expect(seen.count == 200)
        #expect(seen.max()! - seen.min()! <= 4, "the hook's depth went from \(seen.first!) to \(seen.last!) frames")
    }

    /// The same for the lines the background parts write: the sink is not wrapped again per line.
    @Test func logLinesSink_isCalledAtTheSameDepth_lineAfterLine() {
        let log = MastheadService.LogLines(prefix: "test: ")
        let depths = Mutex<[Int]>([])
        log.send { _ in depths.withLock { $0.append(Thread.callStackReturnAddresses.count) } }
        for index in 0..<200 { log.note("line \(index)") }
        let seen = depths.withLock { $0 }
        #expect(seen.count == 200)
        #expect(seen.max()! - seen.min()! <= 4, "the sink's depth went from \(seen.first!) to \(seen.last!) frames")
    }
}
