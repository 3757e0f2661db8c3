import Foundation
import Masthead
import MastheadJSON
@testable import MastheadService
import MastheadStorage
import MastheadTestSupport
import Synchronization
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

    /// A batch: every due reader's message claimed in one commit and recorded in one; once a
    /// target gives no answer, the batch's later messages to it are not sent but retried with it,
    /// while another target's go.
    @Test(arguments: StoreBackend.tested) func aBatch_isTwoCommits_andATargetThatDoesNotAnswerIsNotTriedAgainInIt(backend: StoreBackend) throws {
        let down = try WebhookReceiver()
        let up = try WebhookReceiver()
        let harness = try ServiceHarness(backend: backend) { configuration in
            configuration.webhookURLs = [down.url(), up.url()]
            configuration.applyEnvironment(["MASTHEAD_WEBHOOK_SECRET": WebhookDeliveryTests.secret])
        }
        defer { harness.close() }
        for (user, receiver) in [("ana", down), ("ben", down), ("cy", up), ("dan", up)] {
            try WebhookDeliveryTests.enqueue(harness, receiver, "\(user)-1", user: user)
        }
        down.stop()
        let commits = harness.service.writer.commits.load(ordering: .relaxed)
        let attempts = try OutboundDeliverer(service: harness.service).deliver(upTo: OutboundDeliverer.batch)
        #expect(harness.service.writer.commits.load(ordering: .relaxed) == commits + 2)
        #expect(attempts.map(\.claimed.message.eventId) == ["ana-1", "ben-1", "cy-1", "dan-1"])
        let next = harness.clock.read().adding(milliseconds: 10_000)
        guard case .retry(next, nil, let refused) = attempts[0].outcome else {
            Issue.record("ana's not retried at \(next): \(attempts[0].outcome)")
            return
        }
        #expect(refused.hasPrefix("unreachable: "), "\(refused)")
        #expect(attempts[1].outcome == .notSent(next: next))
        #expect(attempts[2...].map(\.outcome) == [.delivered(status: 200), .delivered(status: 200)])
        #expect(WebhookDeliveryTests.eventIds(up) == ["cy-1", "dan-1"])
        // ben's was not attempted: given back uncounted, due with ana's retry.
        let pending = try WebhookDeliveryTests.deliveries(harness, "?status=pending")
        #expect(pending.map { $0["eventId"]?.string } == ["ben-1", "ana-1"])
        #expect(pending.map { $0["attempts"]?.int64 } == [0, 1])
        #expect(pending.map { $0["nextAttempt"]?.string } == [next.description, next.description])
    }
}
