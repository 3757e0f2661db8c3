import Dispatch
import Foundation
import Masthead
import MastheadPostgreSQL
@testable import MastheadService
import MastheadStorage
import MastheadTestSupport
import Testing

/// Two services on one PostgreSQL database, each with its delivery threads: every message is
/// POSTed once, by one of them.
struct WebhookSharedPostgreSQLTests {
    /// With webhooks set, a write transaction takes the outbox's lock before anything else: while
    /// another connection holds it, the writer waits for it holding no lock on any other table,
    /// so it cannot cross another instance that holds the outbox's lock and wants those rows.
    @Test func aWriteTransaction_takesTheOutboxLockFirst() throws {
        guard StoreBackend.tested.contains(.postgreSQL) else { return }
        let harness = try EntitlementEventTests.harness(.postgreSQL)
        defer { harness.close() }
        let holder = try PostgreSQLConnection(harness.path)
        try holder.execute("BEGIN")
        try holder.execute("LOCK TABLE outbound_messages IN SHARE ROW EXCLUSIVE MODE")
        let done = DispatchSemaphore(value: 0)
        harness.service.writer.submit(EntitlementEventTests.granting("ana")) { _ in done.signal() }
        // The writer's backend, once it waits for the outbox's lock (a minute at most).
        let observer = try PostgreSQLConnection(harness.path)
        var waiting: Int64?
        for _ in 0..<600 where waiting == nil {
            waiting = try observer.rows(
                "SELECT l.pid::bigint FROM pg_locks l JOIN pg_class c ON c.oid = l.relation WHERE NOT l.granted AND c.relname = 'outbound_messages'", []
            ) { row throws(PostgreSQLError) in try row.integer(0) }.first
            if waiting == nil { usleep(100_000) }
        }
        let held = try waiting.map { pid in
            try observer.rows(
                "SELECT c.relname::text FROM pg_locks l JOIN pg_class c ON c.oid = l.relation WHERE l.pid::bigint = $1 AND l.granted AND l.mode <> 'AccessShareLock'",
                [.integer(pid)]
            ) { row throws(PostgreSQLError) in try row.text(0) }
        }
        try holder.execute("ROLLBACK")
        done.wait()
        #expect(try #require(held).isEmpty, "locks held while waiting for the outbox's: \(held ?? [])")
    }

    @Test func twoInstances_deliverEachMessageOnce() throws {
        guard StoreBackend.tested.contains(.postgreSQL) else { return }
        let receiver = try WebhookReceiver()
        let first = try WebhookDeliveryTests.harness(.postgreSQL, receiver)
        defer { first.close() }
        let second = try ServiceHarness(path: first.path) { configuration in
            configuration.webhookURLs = [receiver.url()]
            configuration.applyEnvironment(["MASTHEAD_WEBHOOK_SECRET": WebhookDeliveryTests.secret])
        }
        defer { second.close(remove: false) }
        let count = 60
        for index in 0..<count { try WebhookDeliveryTests.enqueue(first, receiver, "e-\(index)", user: "user-\(index % 7)") }
        first.service.startDeliveringOutbound()
        second.service.startDeliveringOutbound()
        first.service.outboundEnqueued()
        second.service.outboundEnqueued()
        #expect(receiver.waitFor(count).count >= count)
        // Stopped, each instance has finished and recorded its request in flight.
        first.service.outbound.stop()
        second.service.outbound.stop()
        let ids = WebhookDeliveryTests.eventIds(receiver)
        #expect(ids.count == count)
        #expect(Set(ids).count == count)
        // In order per user.
        for user in 0..<7 {
            let sent = ids.filter { Int($0.dropFirst(2))! % 7 == user }.map { Int($0.dropFirst(2))! }
            #expect(sent == sent.sorted(), "user-\(user): \(sent)")
        }
        #expect(try WebhookDeliveryTests.deliveries(first, "?status=delivered&limit=1000").count == count)
    }
}
