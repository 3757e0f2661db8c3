import Foundation
import Masthead
import MastheadSQLite
@testable import MastheadStorage
import MastheadTestSupport
import Testing

/// The outbox in the store: messages written in the caller's transaction, numbered in commit
/// order, read back with their exact bytes.
struct OutboxStoreTests {
    /// A webhook event for `user` to `target`, its body naming `eventId`.
    static func event(_ eventId: String, user: String?, target: String = "https://hooks.example/a") -> OutboundMessage {
        OutboundMessage(
            kind: .event, target: target, orderingKey: user, eventId: eventId, contentType: "application/json",
            body: Array(#"{"id":"\#(eventId)"}"#.utf8))
    }

    @Test(arguments: StoreBackend.tested) func enqueue_storesPendingMessages_dueNow_numberedInOrder_withTheirExactBytes(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        // Two spellings of "é" are two ordering keys; a forward's body is any bytes.
        let composed = "caf\u{E9}"
        let decomposed = "cafe\u{301}"
        let forward = OutboundMessage(
            kind: .forward, target: "http://staging.example:8080/apple?x=1", orderingKey: nil, eventId: "f-1", contentType: "application/octet-stream",
            body: [0x00, 0xFF, 0x80, 0x0A])
        try store.inTransaction { () throws(StorageError) in
            try store.enqueueOutbound([Self.event("e-1", user: composed), forward], now: Instant(milliseconds: 1_000))
        }
        try store.inTransaction { () throws(StorageError) in
            try store.enqueueOutbound([Self.event("e-2", user: decomposed)], now: Instant(milliseconds: 2_000))
            try store.enqueueOutbound([], now: Instant(milliseconds: 2_000))
        }
        let stored = try store.outboundDeliveries(state: .pending, before: nil, limit: 10, withBodies: true)
        #expect(stored.map(\.id) == [3, 2, 1])
        #expect(stored.map(\.message) == [Self.event("e-2", user: decomposed), forward, Self.event("e-1", user: composed)])
        #expect(stored[0].message.orderingKey.map { Array($0.utf8) } == Array(decomposed.utf8))
        #expect(stored[2].message.orderingKey.map { Array($0.utf8) } == Array(composed.utf8))
        #expect(stored.map(\.enqueued) == [Instant(milliseconds: 2_000), Instant(milliseconds: 1_000), Instant(milliseconds: 1_000)])
        #expect(stored.map(\.nextAttempt) == stored.map(\.enqueued))
        #expect(stored.allSatisfy { $0.state == .pending && $0.attempts == 0 && $0.finished == nil && $0.lastStatus == nil && $0.lastError == nil })
        // Another connection sees them once committed.
        #expect(try fixture.open().outboundDeliveries(state: nil, before: nil, limit: 10, withBodies: true).count == 3)
    }

    @Test(arguments: StoreBackend.tested) func enqueue_inATransactionRolledBack_storesNothing(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        #expect(throws: StorageError.closed) {
            try store.inTransaction { () throws(StorageError) in
                try store.enqueueOutbound([Self.event("e-1", user: "ana")], now: Instant(milliseconds: 1_000))
                throw StorageError.closed
            }
        }
        #expect(try store.outboundDeliveries(state: nil, before: nil, limit: 10, withBodies: true).isEmpty)
        // The number is not taken either: the next message is the first.
        try store.inTransaction { () throws(StorageError) in try store.enqueueOutbound([Self.event("e-2", user: "ana")], now: Instant(milliseconds: 1_000)) }
        #expect(try store.outboundDeliveries(state: nil, before: nil, limit: 10, withBodies: true).map(\.id) == [1])
    }

    @Test(arguments: StoreBackend.tested) func deliveries_arePaged_newestFirst_byState(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        try store.inTransaction { () throws(StorageError) in
            try store.enqueueOutbound((1...5).map { Self.event("e-\($0)", user: "ana") }, now: Instant(milliseconds: 1_000))
        }
        let first = try store.outboundDeliveries(state: .pending, before: nil, limit: 2, withBodies: true)
        #expect(first.map(\.id) == [5, 4])
        #expect(try store.outboundDeliveries(state: .pending, before: 4, limit: 2, withBodies: true).map(\.id) == [3, 2])
        #expect(try store.outboundDeliveries(state: .pending, before: 2, limit: 2, withBodies: true).map(\.id) == [1])
        #expect(try store.outboundDeliveries(state: .delivered, before: nil, limit: 10, withBodies: true).isEmpty)
        #expect(try store.outboundDeliveries(state: .failed, before: nil, limit: 10, withBodies: true).isEmpty)
    }

    /// Claims the due message at `now` (milliseconds), leased for a second.
    static func claim(_ store: any EntitlementStore, _ now: Int64) throws -> OutboundDelivery? {
        try store.inTransaction { () throws(StorageError) in
            try store.claimOutbound(now: Instant(milliseconds: now), leaseUntil: Instant(milliseconds: now + 1_000), limit: 1).first
        }
    }

    static func record(_ store: any EntitlementStore, _ claimed: OutboundDelivery, _ outcome: OutboundOutcome, _ now: Int64) throws -> Bool {
        try store.inTransaction { () throws(StorageError) in try store.recordOutbound(claimed, outcome: outcome, now: Instant(milliseconds: now)) }
    }

    @Test(arguments: StoreBackend.tested) func claim_takesTheDueMessage_underALease_inOrderPerTargetAndKey(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        let other = try fixture.open()
        let unordered = OutboundMessage(kind: .forward, target: "https://hooks.example/a", orderingKey: nil, eventId: "f-1", contentType: "text/plain", body: [1])
        try store.inTransaction { () throws(StorageError) in
            try store.enqueueOutbound(
                [Self.event("ana-1", user: "ana"), Self.event("ana-2", user: "ana"), Self.event("ben-1", user: "ben"), unordered,
                 Self.event("ana-b", user: "ana", target: "https://other.example/")],
                now: Instant(milliseconds: 100))
        }
        #expect(try Self.claim(store, 99) == nil)
        let first = try #require(try Self.claim(store, 100))
        #expect(first.message.eventId == "ana-1")
        #expect(first.attempts == 1)
        #expect(first.nextAttempt == Instant(milliseconds: 1_100))
        // ana's second waits behind her first (claimed, still pending); the rest go, each once.
        #expect(try Self.claim(other, 200)?.message.eventId == "ben-1")
        #expect(try Self.claim(store, 200)?.message.eventId == "f-1")
        #expect(try Self.claim(other, 200)?.message.eventId == "ana-b")
        #expect(try Self.claim(store, 200) == nil)
        // The lease ends: claimed again; the first claim's outcome no longer counts.
        let again = try #require(try Self.claim(other, 1_100))
        #expect(again.message.eventId == "ana-1")
        #expect(again.attempts == 2)
        #expect(try Self.record(store, first, .delivered(status: 200), 1_150) == false)
        #expect(try Self.record(other, again, .delivered(status: 201), 1_200))
        #expect(try Self.claim(store, 1_200)?.message.eventId == "ana-2")
        let delivered = try #require(try store.outboundDeliveries(state: .delivered, before: nil, limit: 10, withBodies: true).first)
        #expect(delivered.message.eventId == "ana-1")
        #expect(delivered.finished == Instant(milliseconds: 1_200))
        #expect(delivered.lastStatus == 201)
    }

    @Test(arguments: StoreBackend.tested) func retry_holdsTheLaterMessagesOfItsKey_untilItIsDue_parkingReleasesThem(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        try store.inTransaction { () throws(StorageError) in
            try store.enqueueOutbound([Self.event("ana-1", user: "ana")], now: Instant(milliseconds: 100))
        }
        let claimed = try #require(try Self.claim(store, 100))
        try store.inTransaction { () throws(StorageError) in
            try store.enqueueOutbound([Self.event("ana-2", user: "ana")], now: Instant(milliseconds: 150))
        }
        #expect(try Self.record(store, claimed, .retry(next: Instant(milliseconds: 5_000), status: nil, error: "refused"), 200))
        let pending = try store.outboundDeliveries(state: .pending, before: nil, limit: 10, withBodies: true)
        #expect(pending.map(\.nextAttempt) == [Instant(milliseconds: 5_000), Instant(milliseconds: 5_000)])
        #expect(pending.last?.lastError == "refused")
        #expect(pending.last?.lastStatus == nil)
        #expect(try Self.claim(store, 4_999) == nil)
        let retried = try #require(try Self.claim(store, 5_000))
        #expect(retried.message.eventId == "ana-1")
        #expect(try Self.record(store, retried, .failed(status: 500, error: "HTTP 500"), 5_100))
        #expect(try Self.claim(store, 5_100)?.message.eventId == "ana-2")
        #expect(try store.outboxBacklog() == OutboxBacklog(pending: 1, failed: 1, oldestPending: Instant(milliseconds: 150)))
    }

    @Test(arguments: StoreBackend.tested) func retryWithoutAnAnswer_holdsEveryPendingMessageOfItsTarget_oneWithAStatusOnlyItsKey(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        try store.inTransaction { () throws(StorageError) in
            try store.enqueueOutbound(
                [Self.event("ana-1", user: "ana"), Self.event("ben-1", user: "ben"), Self.event("cy-b", user: "cy", target: "https://other.example/"),
                 Self.event("dan-1", user: "dan")],
                now: Instant(milliseconds: 100))
        }
        // An HTTP status: the target answers, so the other users' messages to it go on.
        let first = try #require(try Self.claim(store, 100))
        #expect(try Self.record(store, first, .retry(next: Instant(milliseconds: 9_000), status: 503, error: "HTTP 503"), 200))
        let second = try #require(try Self.claim(store, 200))
        #expect(second.message.eventId == "ben-1")
        // No answer: every pending message of that target waits for the retry, another target's goes on.
        #expect(try Self.record(store, second, .retry(next: Instant(milliseconds: 5_000), status: nil, error: "refused"), 300))
        let other = try #require(try Self.claim(store, 300))
        #expect(other.message.eventId == "cy-b")
        #expect(try Self.record(store, other, .delivered(status: 200), 300))
        #expect(try Self.claim(store, 4_999) == nil)
        let pending = try store.outboundDeliveries(state: .pending, before: nil, limit: 10, withBodies: true)
        // ana's later retry is kept; dan's earlier due time is pushed back to ben's.
        #expect(pending.filter { $0.message.target == "https://hooks.example/a" }.map(\.nextAttempt).sorted() ==
            [Instant(milliseconds: 5_000), Instant(milliseconds: 5_000), Instant(milliseconds: 9_000)])
        #expect(try Self.claim(store, 5_000) != nil)
    }

    @Test(arguments: StoreBackend.tested) func enqueue_behindAPendingMessageOfItsKey_isDueNoEarlierThanIt(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        try store.inTransaction { () throws(StorageError) in
            try store.enqueueOutbound([Self.event("ana-1", user: "ana")], now: Instant(milliseconds: 100))
        }
        let claimed = try #require(try Self.claim(store, 100))
        #expect(try Self.record(store, claimed, .retry(next: Instant(milliseconds: 50_000), status: 500, error: "HTTP 500"), 200))
        try store.inTransaction { () throws(StorageError) in
            try store.enqueueOutbound(
                [Self.event("ana-2", user: "ana"), Self.event("ana-b", user: "ana", target: "https://other.example/"), Self.event("ben-1", user: "ben")],
                now: Instant(milliseconds: 2_000))
        }
        let due = Dictionary(uniqueKeysWithValues: try store.outboundDeliveries(state: .pending, before: nil, limit: 10, withBodies: true).map { ($0.message.eventId, $0.nextAttempt) })
        #expect(due["ana-2"] == Instant(milliseconds: 50_000))
        #expect(due["ana-b"] == Instant(milliseconds: 2_000))
        #expect(due["ben-1"] == Instant(milliseconds: 2_000))
    }

    @Test(arguments: StoreBackend.tested) func enqueue_behindAClaimedMessage_isDueOnceItIsDelivered_notWhenItsLeaseEnds(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        try store.inTransaction { () throws(StorageError) in try store.enqueueOutbound([Self.event("ana-1", user: "ana")], now: Instant(milliseconds: 100)) }
        let claimed = try #require(try Self.claim(store, 100))
        try store.inTransaction { () throws(StorageError) in try store.enqueueOutbound([Self.event("ana-2", user: "ana")], now: Instant(milliseconds: 200)) }
        #expect(try Self.claim(store, 300) == nil)
        #expect(try Self.record(store, claimed, .delivered(status: 200), 300))
        #expect(try Self.claim(store, 300)?.message.eventId == "ana-2")
    }

    @Test(arguments: StoreBackend.tested) func park_parksThePendingMessagesEnqueuedBeforeTheCutoff_withoutAnAttempt(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        try store.inTransaction { () throws(StorageError) in try store.enqueueOutbound([Self.event("old", user: "ana")], now: Instant(milliseconds: 100)) }
        try store.inTransaction { () throws(StorageError) in try store.enqueueOutbound([Self.event("new", user: "ben")], now: Instant(milliseconds: 5_000)) }
        let parked = try store.inTransaction { () throws(StorageError) in
            try store.parkOutbound(enqueuedBefore: Instant(milliseconds: 5_000), now: Instant(milliseconds: 9_000))
        }
        #expect(parked == 1)
        let failed = try #require(try store.outboundDeliveries(state: .failed, before: nil, limit: 10, withBodies: true).first)
        #expect(failed.message.eventId == "old")
        #expect(failed.attempts == 0)
        #expect(failed.finished == Instant(milliseconds: 9_000))
        #expect(failed.lastError == "not delivered within a day")
        #expect(try store.outboundDeliveries(state: .pending, before: nil, limit: 10, withBodies: true).map(\.message.eventId) == ["new"])
    }

    @Test(arguments: StoreBackend.tested) func replay_makesAFinishedMessagePendingAgain_andPruneDeletesOnlyOldFinishedOnes(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        try store.inTransaction { () throws(StorageError) in
            try store.enqueueOutbound((1...4).map { Self.event("e-\($0)", user: "u\($0)") }, now: Instant(milliseconds: 100))
        }
        for (index, outcome) in [OutboundOutcome.failed(status: nil, error: "timed out"), .delivered(status: 200), .failed(status: 404, error: "HTTP 404")].enumerated() {
            let claimed = try #require(try Self.claim(store, 100))
            #expect(try Self.record(store, claimed, outcome, 1_000 * Int64(index + 1)))
        }
        let replay = { (id: Int64, now: Int64) throws -> OutboundReplay in
            try store.inTransaction { () throws(StorageError) in try store.replayOutbound(id: id, now: Instant(milliseconds: now)) }
        }
        #expect(try replay(4, 5_000) == .pending)
        #expect(try replay(9, 5_000) == .unknown)
        guard case .replayed(let replayed) = try replay(1, 5_000) else {
            Issue.record("not replayed")
            return
        }
        #expect(replayed.state == .pending)
        #expect(replayed.attempts == 0)
        #expect(replayed.enqueued == Instant(milliseconds: 5_000))
        #expect(replayed.lastError == nil)
        #expect(try store.outboundDeliveries(state: nil, before: 2, limit: 1, withBodies: true) == [replayed])
        // Without their bodies: only their sizes are read.
        var listed = replayed
        listed.message.body = []
        #expect(try store.outboundDeliveries(state: nil, before: 2, limit: 1, withBodies: false) == [listed])
        #expect(try store.outboundDeliveries(state: nil, before: 2, limit: 1, withBodies: false).first?.bodyBytes == replayed.message.body.count)
        #expect(try store.inTransaction { () throws(StorageError) in try store.replayFailedOutbound(now: Instant(milliseconds: 6_000)) } == 1)
        #expect(try store.outboxBacklog() == OutboxBacklog(pending: 3, failed: 0, oldestPending: Instant(milliseconds: 100)))
        // Delivered at 2 000: deleted by a cutoff after it, not before; pending ones never.
        #expect(try store.inTransaction { () throws(StorageError) in try store.pruneOutbound(finishedBefore: Instant(milliseconds: 2_000)) } == 0)
        #expect(try store.inTransaction { () throws(StorageError) in try store.pruneOutbound(finishedBefore: Instant(milliseconds: 1_000_000)) } == 1)
        #expect(try store.outboundDeliveries(state: nil, before: nil, limit: 10, withBodies: true).map(\.id) == [4, 3, 1])
    }

    @Test func prune_keepsTheNewestMessage_soThatIdsKeepGrowing() throws {
        let fixture = try StoreFixture(.sqlite)
        defer { fixture.remove() }
        let store = try fixture.open()
        try store.inTransaction { () throws(StorageError) in try store.enqueueOutbound([Self.event("e-1", user: "ana")], now: Instant(milliseconds: 100)) }
        let claimed = try #require(try Self.claim(store, 100))
        #expect(try Self.record(store, claimed, .delivered(status: 200), 200))
        #expect(try store.inTransaction { () throws(StorageError) in try store.pruneOutbound(finishedBefore: Instant(milliseconds: 1_000)) } == 0)
        try store.inTransaction { () throws(StorageError) in try store.enqueueOutbound([Self.event("e-2", user: "ana")], now: Instant(milliseconds: 300)) }
        #expect(try store.outboundDeliveries(state: .pending, before: nil, limit: 10, withBodies: true).map(\.id) == [2])
    }

    /// Two instances claiming at once on PostgreSQL: the second skips the message the first has
    /// locked (its claim not yet committed) and takes the next one, never the same.
    @Test func claim_onPostgreSQL_skipsAMessageAnotherConnectionIsClaiming() throws {
        guard StoreBackend.tested.contains(.postgreSQL) else { return }
        let fixture = try StoreFixture(.postgreSQL)
        defer { fixture.remove() }
        let store = try fixture.open()
        let other = try fixture.open()
        try store.inTransaction { () throws(StorageError) in
            try store.enqueueOutbound([Self.event("ana-1", user: "ana"), Self.event("ben-1", user: "ben")], now: Instant(milliseconds: 100))
        }
        let (first, second) = try store.inTransaction { () throws(StorageError) in
            let first = try store.claimOutbound(now: Instant(milliseconds: 100), leaseUntil: Instant(milliseconds: 1_100), limit: 1)
            let second = try other.inTransaction { () throws(StorageError) in
                try other.claimOutbound(now: Instant(milliseconds: 100), leaseUntil: Instant(milliseconds: 1_100), limit: 10)
            }
            return (first, second)
        }
        #expect(first.map(\.message.eventId) == ["ana-1"])
        #expect(second.map(\.message.eventId) == ["ben-1"])
        #expect(try Self.claim(other, 200) == nil)
    }

    /// The look for a due message reads the queues' heads through their index: not every pending
    /// message (a planner that took the index on state read all of them for each one it passed,
    /// which made a growing outbox ever slower to deliver and, through the writer, ingestion).
    @Test func claim_onSQLite_readsTheQueuesHeadsThroughTheirIndex_withoutSorting() throws {
        let fixture = try StoreFixture(.sqlite)
        defer { fixture.remove() }
        _ = try fixture.open()
        let database = try Database(path: fixture.location)
        let plan = try database.prepare("EXPLAIN QUERY PLAN " + OutboundSQL.claimDue).rows([.integer(0)]) { row throws(SQLiteError) in
            try row.text(3)
        }
        #expect(plan.contains { $0.contains("USING INDEX outbound_messages_heads") }, "\(plan)")
        #expect(!plan.contains { $0.contains("TEMP B-TREE") || $0.contains("SCAN") }, "\(plan)")
    }

    /// A claim takes up to its limit of the queues' heads, in the order they are due, each under
    /// the lease; never two of one queue.
    @Test(arguments: StoreBackend.tested) func claim_takesABatchOfHeads_inDueOrder_upToItsLimit(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        try store.inTransaction { () throws(StorageError) in
            try store.enqueueOutbound([Self.event("ana-1", user: "ana"), Self.event("ana-2", user: "ana")], now: Instant(milliseconds: 100))
            try store.enqueueOutbound([Self.event("ben-1", user: "ben"), Self.event("cy-1", user: "cy")], now: Instant(milliseconds: 200))
        }
        let claim = { (limit: Int) throws -> [OutboundDelivery] in
            try store.inTransaction { () throws(StorageError) in
                try store.claimOutbound(now: Instant(milliseconds: 300), leaseUntil: Instant(milliseconds: 9_000), limit: limit)
            }
        }
        let two = try claim(2)
        #expect(two.map(\.message.eventId) == ["ana-1", "ben-1"])
        #expect(two.allSatisfy { $0.attempts == 1 && $0.nextAttempt == Instant(milliseconds: 9_000) })
        #expect(try claim(10).map(\.message.eventId) == ["cy-1"])
        #expect(try claim(10).isEmpty)
    }

    /// A long queue: only its head is claimable; each delivery makes the next one its head, in
    /// order, while another reader's message goes at once.
    @Test(arguments: StoreBackend.tested) func longQueue_onlyItsHeadIsClaimable_eachDeliveryReleasesTheNext(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        try store.inTransaction { () throws(StorageError) in
            try store.enqueueOutbound((1...20).map { Self.event("ana-\($0)", user: "ana") } + [Self.event("ben-1", user: "ben")], now: Instant(milliseconds: 100))
        }
        // Each round claims whatever is claimable, then delivers it: one of ana's at a time, in order.
        var rounds: [[String]] = []
        var now: Int64 = 100
        while true {
            var claimed: [OutboundDelivery] = []
            while let next = try Self.claim(store, now) { claimed.append(next) }
            if claimed.isEmpty { break }
            rounds.append(claimed.map(\.message.eventId))
            now += 10
            for delivery in claimed { #expect(try Self.record(store, delivery, .delivered(status: 200), now)) }
        }
        #expect(rounds == [["ana-1", "ben-1"]] + (2...20).map { ["ana-\($0)"] })
        #expect(try store.outboxBacklog().pending == 0)
    }

    /// Parking a queue's head (its day is over) makes the next message the head, which a newer
    /// enqueue had put behind it; a message replayed into a busy queue waits for the one being
    /// sent; replaying many of one queue releases only the first.
    @Test(arguments: StoreBackend.tested) func parkingAndReplaying_keepEveryQueueWithOneHead(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        try store.inTransaction { () throws(StorageError) in try store.enqueueOutbound([Self.event("ana-1", user: "ana")], now: Instant(milliseconds: 100)) }
        try store.inTransaction { () throws(StorageError) in try store.enqueueOutbound([Self.event("ana-2", user: "ana")], now: Instant(milliseconds: 5_000)) }
        #expect(try store.inTransaction { () throws(StorageError) in
            try store.parkOutbound(enqueuedBefore: Instant(milliseconds: 1_000), now: Instant(milliseconds: 6_000))
        } == 1)
        let second = try #require(try Self.claim(store, 6_000))
        #expect(second.message.eventId == "ana-2")
        // ana-1 replayed while ana-2 is out: it waits for ana-2's outcome.
        let parked = try #require(try store.outboundDeliveries(state: .failed, before: nil, limit: 1, withBodies: true).first)
        guard case .replayed = try store.inTransaction({ () throws(StorageError) in try store.replayOutbound(id: parked.id, now: Instant(milliseconds: 6_100)) })
        else {
            Issue.record("not replayed")
            return
        }
        #expect(try Self.claim(store, 6_100) == nil)
        #expect(try Self.record(store, second, .failed(status: 410, error: "HTTP 410"), 6_200))
        let replayed = try #require(try Self.claim(store, 6_200))
        #expect(replayed.message.eventId == "ana-1")
        #expect(try Self.record(store, replayed, .failed(status: 410, error: "HTTP 410"), 6_300))
        // Both parked, replayed together: one head, then the other.
        #expect(try store.inTransaction { () throws(StorageError) in try store.replayFailedOutbound(now: Instant(milliseconds: 7_000)) } == 2)
        let first = try #require(try Self.claim(store, 7_000))
        #expect(first.message.eventId == "ana-1")
        #expect(try Self.claim(store, 7_000) == nil)
        #expect(try Self.record(store, first, .delivered(status: 200), 7_100))
        #expect(try Self.claim(store, 7_100)?.message.eventId == "ana-2")
    }
}
