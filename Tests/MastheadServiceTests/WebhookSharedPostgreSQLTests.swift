import Foundation
import Masthead
@testable import MastheadService
import MastheadStorage
import MastheadTestSupport
import Testing

/// Two services on one PostgreSQL database, each with its delivery threads: every message is
/// POSTed once, by one of them.
struct WebhookSharedPostgreSQLTests {
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
