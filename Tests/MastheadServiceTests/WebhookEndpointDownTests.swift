import Foundation
import Masthead
import MastheadJSON
@testable import MastheadService
import MastheadStorage
import MastheadTestSupport
import Testing

/// An endpoint that is down (its port closed) then back: the refused attempts are retried, and the
/// message is delivered once it listens again.
struct WebhookEndpointDownTests {
    @Test(arguments: StoreBackend.tested) func aRefusedConnection_isRetried_andDeliveredWhenTheEndpointIsBack(backend: StoreBackend) throws {
        let receiver = try WebhookReceiver()
        let harness = try WebhookDeliveryTests.harness(backend, receiver)
        defer { harness.close() }
        try WebhookDeliveryTests.enqueue(harness, receiver, "ana-1", user: "ana")
        receiver.stop()
        let deliverer = OutboundDeliverer(service: harness.service)
        let refused = try #require(try deliverer.deliverNext())
        guard case .retry(let next, let status, let error) = refused.outcome else {
            Issue.record("not retried: \(refused.outcome)")
            return
        }
        #expect(status == nil)
        #expect(error.hasPrefix("unreachable: "), "\(error)")
        // The target is not in the error (it may carry a token).
        #expect(!error.contains("127.0.0.1:\(receiver.port)"), "\(error)")
        #expect(next == harness.clock.read().adding(milliseconds: 10_000))
        try receiver.restart()
        WebhookDeliveryTests.advance(harness, milliseconds: 10_000)
        #expect(try deliverer.deliverNext()?.outcome == .delivered(status: 200))
        #expect(WebhookDeliveryTests.eventIds(receiver) == ["ana-1"])
        let delivered = try WebhookDeliveryTests.deliveries(harness, "?status=delivered")
        #expect(delivered.first?["attempts"]?.int64 == 2)
        #expect(delivered.first?["lastError"]?.kind == .null)
    }
}
