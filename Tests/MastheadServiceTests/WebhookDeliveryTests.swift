import Foundation
import Masthead
import MastheadFormats
import MastheadJSON
@testable import MastheadService
import MastheadStorage
import MastheadTestSupport
import Synchronization
import Testing

/// Delivering the outbox to a real receiving server: signed POSTs, order per user, retries with
/// backoff on the service's clock, parking after a day, replay, and an endpoint that is slow
/// without slowing the download check.
struct WebhookDeliveryTests {
    static let secret = "whsec-test-7d1f0c2b"

    /// A harness whose webhooks go to `receiver`, signed with ``secret``.
    static func harness(_ backend: StoreBackend, _ receiver: WebhookReceiver, threads: Int = 2) throws -> ServiceHarness {
        try ServiceHarness(backend: backend) { configuration in
            configuration.webhookURLs = [receiver.url()]
            configuration.webhookDeliveryThreads = threads
            configuration.applyEnvironment(["MASTHEAD_WEBHOOK_SECRET": secret])
        }
    }

    /// Enqueues an event for `user`, committed through the service's writer as the events are.
    static func enqueue(_ harness: ServiceHarness, _ receiver: WebhookReceiver, _ eventId: String, user: String) throws {
        let message = OutboundMessage(
            kind: .event, target: receiver.url(), orderingKey: user, eventId: eventId, contentType: "application/json",
            body: Array(#"{"id":"\#(eventId)","type":"entitlements.changed","userId":"\#(user)"}"#.utf8))
        let now = harness.clock.read()
        try harness.service.writer.answer { store in try store.enqueueOutbound([message], now: now) }
    }

    /// The event ids the receiver got, in arrival order.
    static func eventIds(_ receiver: WebhookReceiver) -> [String] { receiver.received.compactMap { $0.header("Masthead-Event-Id") } }

    static func advance(_ harness: ServiceHarness, milliseconds: Int64) {
        harness.clock.value.withLock { $0 = $0.adding(milliseconds: milliseconds) }
    }

    static func deliveries(_ harness: ServiceHarness, _ query: String = "") throws -> [JSONValue] {
        let answer = harness.call("GET", "/v1/webhooks/deliveries\(query)", token: "admin-token")
        #expect(answer.status == 200, "\(answer.body)")
        return Array(try #require(answer.json?["deliveries"]).elements)
    }

    @Test(arguments: StoreBackend.tested) func delivery_isASignedPOST_withTheEventIdAndTheBodyUnchanged(backend: StoreBackend) throws {
        let receiver = try WebhookReceiver()
        let harness = try Self.harness(backend, receiver)
        defer { harness.close() }
        try Self.enqueue(harness, receiver, "e-1", user: "ana")
        let deliverer = OutboundDeliverer(service: harness.service)
        let attempt = try #require(try deliverer.deliverNext())
        #expect(attempt.outcome == .delivered(status: 200))
        let received = try #require(receiver.received.first)
        #expect(received.method == "POST")
        #expect(received.target == "/hooks")
        #expect(received.header("Content-Type") == "application/json")
        #expect(received.header("Masthead-Event-Id") == "e-1")
        #expect(received.header("User-Agent") == "Masthead/\(MastheadVersion.current)")
        #expect(received.text == #"{"id":"e-1","type":"entitlements.changed","userId":"ana"}"#)
        // The receiver recomputes the signature over the body as received, at the service's time.
        let now = harness.clock.read().milliseconds / 1000
        #expect(received.header("Masthead-Signature")?.hasPrefix("t=\(now),v1=") == true)
        #expect(WebhookReceiver.hasValidSignature(received, secret: Self.secret, now: now))
        #expect(!WebhookReceiver.hasValidSignature(received, secret: "another-secret", now: now))
        #expect(!WebhookReceiver.hasValidSignature(received, secret: Self.secret, now: now + 301))
        var tampered = received
        tampered.body[tampered.body.count - 2] = UInt8(ascii: "b")
        #expect(!WebhookReceiver.hasValidSignature(tampered, secret: Self.secret, now: now))
        // Delivered: nothing more is due.
        #expect(try deliverer.deliverNext() == nil)
        let listed = try Self.deliveries(harness, "?status=delivered")
        #expect(listed.map { $0["eventId"]?.string } == ["e-1"])
        #expect(listed.first?["lastStatus"]?.int64 == 200)
        #expect(listed.first?["attempts"]?.int64 == 1)
    }

    @Test(arguments: StoreBackend.tested) func order_aFailingMessageHoldsItsUsersLaterOnes_otherUsersProceed(backend: StoreBackend) throws {
        let receiver = try WebhookReceiver()
        let harness = try Self.harness(backend, receiver)
        defer { harness.close() }
        try Self.enqueue(harness, receiver, "ana-1", user: "ana")
        try Self.enqueue(harness, receiver, "ana-2", user: "ana")
        try Self.enqueue(harness, receiver, "ben-1", user: "ben")
        receiver.fail(next: 1)
        let deliverer = OutboundDeliverer(service: harness.service)
        #expect(try deliverer.deliverNext()?.outcome == .retry(next: harness.clock.read().adding(milliseconds: 10_000), status: 503, error: "HTTP 503"))
        // ana's second waits for her first; ben's goes.
        #expect(try deliverer.deliverNext()?.claimed.message.eventId == "ben-1")
        #expect(try deliverer.deliverNext() == nil)
        Self.advance(harness, milliseconds: 9_999)
        #expect(try deliverer.deliverNext() == nil)
        Self.advance(harness, milliseconds: 1)
        #expect(try deliverer.deliverNext()?.claimed.message.eventId == "ana-1")
        #expect(try deliverer.deliverNext()?.claimed.message.eventId == "ana-2")
        #expect(try deliverer.deliverNext() == nil)
        #expect(Self.eventIds(receiver) == ["ana-1", "ben-1", "ana-1", "ana-2"])
    }

    @Test(arguments: StoreBackend.tested) func retries_backOffExponentially_thenParkAfterADay_andThenNoLongerHoldTheOthers(backend: StoreBackend) throws {
        let receiver = try WebhookReceiver()
        let harness = try Self.harness(backend, receiver)
        defer { harness.close() }
        let enqueued = harness.clock.read()
        try Self.enqueue(harness, receiver, "ana-1", user: "ana")
        try Self.enqueue(harness, receiver, "ana-2", user: "ana")
        receiver.plan { $0.status = 500 }
        let deliverer = OutboundDeliverer(service: harness.service)
        var waits: [Int64] = []
        var parked: OutboundOutcome?
        while parked == nil, waits.count < 100 {
            let attempt = try #require(try deliverer.deliverNext())
            #expect(attempt.claimed.message.eventId == "ana-1")
            switch attempt.outcome {
            case .retry(let next, let status, _):
                #expect(status == 500)
                waits.append(next.milliseconds - harness.clock.read().milliseconds)
                // Not due a millisecond early; ana's second is held meanwhile.
                Self.advance(harness, milliseconds: waits.last! - 1)
                #expect(try deliverer.deliverNext() == nil)
                Self.advance(harness, milliseconds: 1)
            case .failed: parked = attempt.outcome
            case .delivered, .notSent: Issue.record("\(attempt.outcome)")
            }
        }
        // 10 s doubled each time up to an hour, then hourly, while the next try is within a day.
        let doubling: [Int64] = [10_000, 20_000, 40_000, 80_000, 160_000, 320_000, 640_000, 1_280_000, 2_560_000]
        #expect(Array(waits.prefix(doubling.count)) == doubling)
        #expect(waits.dropFirst(doubling.count).allSatisfy { $0 == 3_600_000 })
        #expect(waits.count + 1 == 32, "attempts in a day")
        let lastTry = harness.clock.read().milliseconds
        #expect(lastTry <= enqueued.milliseconds + 86_400_000)
        #expect(lastTry + 3_600_000 > enqueued.milliseconds + 86_400_000)
        #expect(parked == .failed(status: 500, error: "HTTP 500 (attempt \(waits.count + 1); no retry after a day)"))
        // Parked: ana's second goes.
        receiver.plan { $0.status = 200 }
        #expect(try deliverer.deliverNext()?.outcome == .delivered(status: 200))
        #expect(try deliverer.deliverNext() == nil)
        let failed = try Self.deliveries(harness, "?status=failed")
        #expect(failed.map { $0["eventId"]?.string } == ["ana-1"])
        #expect(failed.first?["attempts"]?.int64 == Int64(waits.count + 1))
        #expect(failed.first?["lastStatus"]?.int64 == 500)
    }

    @Test(arguments: StoreBackend.tested) func replay_sendsAParkedOrDeliveredMessageAgain_refusesAPendingOrUnknownOne(backend: StoreBackend) throws {
        let receiver = try WebhookReceiver()
        let harness = try Self.harness(backend, receiver)
        defer { harness.close() }
        try Self.enqueue(harness, receiver, "ana-1", user: "ana")
        try Self.enqueue(harness, receiver, "ben-1", user: "ben")
        let deliverer = OutboundDeliverer(service: harness.service)
        receiver.plan { $0.status = 410 }
        // Both fail until parked, a day later.
        while let attempt = try deliverer.deliverNext() ?? {
            Self.advance(harness, milliseconds: 3_600_000)
            return try deliverer.deliverNext()
        }() {
            if case .delivered = attempt.outcome { Issue.record("delivered") }
        }
        #expect(try Self.deliveries(harness, "?status=failed").count == 2)
        receiver.plan { $0.status = 204 }
        let replayed = harness.call("POST", "/v1/webhooks/deliveries/1/replay", token: "admin-token")
        #expect(replayed.status == 200, "\(replayed.body)")
        #expect(replayed.json?["status"]?.string == "pending")
        #expect(replayed.json?["attempts"]?.int64 == 0)
        #expect(replayed.json?["eventId"]?.string == "ana-1")
        #expect(replayed.json?["enqueued"]?.string == harness.clock.read().description)
        #expect(harness.call("POST", "/v1/webhooks/deliveries/1/replay", token: "admin-token").body.contains(#""code":"delivery_pending""#))
        #expect(harness.call("POST", "/v1/webhooks/deliveries/99/replay", token: "admin-token").status == 404)
        #expect(harness.call("POST", "/v1/webhooks/deliveries/0/replay", token: "admin-token").body.contains(#""code":"invalid_delivery_id""#))
        #expect(harness.call("POST", "/v1/webhooks/deliveries/1/replay", token: "api-token").status == 403)
        #expect(try deliverer.deliverNext()?.outcome == .delivered(status: 204))
        // A delivered message may be replayed too; the parked ones all at once.
        #expect(harness.call("POST", "/v1/webhooks/deliveries/1/replay", token: "admin-token").status == 200)
        let bulk = harness.call("POST", "/v1/webhooks/deliveries/replay", token: "admin-token")
        #expect(bulk.body == #"{"replayed":1}"#)
        #expect(try deliverer.deliverNext() != nil)
        #expect(try deliverer.deliverNext() != nil)
        #expect(try deliverer.deliverNext() == nil)
        #expect(try Self.deliveries(harness, "?status=delivered").count == 2)
        let sent = Self.eventIds(receiver)
        #expect(sent.suffix(3).sorted() == ["ana-1", "ana-1", "ben-1"])
    }

    @Test(arguments: StoreBackend.tested) func aMessageToATargetNoLongerConfigured_isParkedAtClaim_notSent(backend: StoreBackend) throws {
        let receiver = try WebhookReceiver()
        let harness = try Self.harness(backend, receiver)
        defer { harness.close() }
        let removed = OutboundMessage(
            kind: .event, target: receiver.url() + "-removed", orderingKey: "ana", eventId: "e-removed", contentType: "application/json", body: Array("{}".utf8))
        let now = harness.clock.read()
        try harness.service.writer.answer { store in try store.enqueueOutbound([removed], now: now) }
        let deliverer = OutboundDeliverer(service: harness.service)
        #expect(try deliverer.deliverNext()?.outcome == .failed(status: nil, error: "target no longer configured"))
        #expect(receiver.received.isEmpty)
        let parked = try Self.deliveries(harness, "?status=failed")
        #expect(parked.map { $0["lastError"]?.string } == ["target no longer configured"])
    }

    @Test func theListing_showsTargetsWithoutTheirUserPasswordOrQuery() throws {
        let receiver = try WebhookReceiver()
        let harness = try Self.harness(.sqlite, receiver)
        defer { harness.close() }
        let message = OutboundMessage(
            kind: .event, target: "https://ana:pw-9f2@hooks.example/in?token=tk-51c", orderingKey: "ana", eventId: "e-1", contentType: "application/json",
            body: Array("{}".utf8))
        let now = harness.clock.read()
        try harness.service.writer.answer { store in try store.enqueueOutbound([message], now: now) }
        let answer = harness.call("GET", "/v1/webhooks/deliveries", token: "admin-token")
        #expect(answer.json?["deliveries"].map { $0.elements.map { $0["target"]?.string } } == ["https://hooks.example/in?…"])
        #expect(!answer.body.contains("pw-9f2") && !answer.body.contains("tk-51c"))
    }

    @Test func deliveries_arePaged_andTheQueryIsChecked() throws {
        let receiver = try WebhookReceiver()
        let harness = try Self.harness(.sqlite, receiver)
        defer { harness.close() }
        for index in 1...3 { try Self.enqueue(harness, receiver, "e-\(index)", user: "u\(index)") }
        let first = harness.call("GET", "/v1/webhooks/deliveries?limit=2", token: "admin-token")
        #expect(first.json?["deliveries"].map { $0.elements.map { $0["id"]?.int64 } } == [3, 2])
        #expect(first.json?["next"]?.int64 == 2)
        let second = harness.call("GET", "/v1/webhooks/deliveries?limit=2&before=2", token: "admin-token")
        #expect(second.json?["deliveries"].map { $0.elements.map { $0["id"]?.int64 } } == [1])
        #expect(second.body.hasSuffix(#""next":null}"#))
        for query in ["status=parked", "limit=0", "limit=1001", "before=x", "before=-1"] {
            let answer = harness.call("GET", "/v1/webhooks/deliveries?\(query)", token: "admin-token")
            #expect(answer.status == 400, "\(query)")
            #expect(answer.body.contains(#""code":"invalid_query""#), "\(query)")
        }
        #expect(harness.call("GET", "/v1/webhooks/deliveries", token: "api-token").status == 403)
    }

    @Test func aSlowEndpoint_doesNotDelayTheDownloadCheck_norIngestion() throws {
        let receiver = try WebhookReceiver()
        receiver.plan { $0.holding = true }
        let harness = try Self.harness(.sqlite, receiver, threads: 1)
        defer { harness.close() }
        harness.service.startDeliveringOutbound()
        try Self.enqueue(harness, receiver, "e-1", user: "alice")
        harness.service.outboundEnqueued()
        // The delivery thread is inside its request, which the endpoint has not answered.
        #expect(receiver.waitFor(1).count == 1)
        #expect(receiver.answered == 0)
        let stored = harness.call("POST", "/v1/users/alice/receipts", body: try ServiceHarness.example("table-6-1"))
        #expect(stored.status == 200, "\(stored.body)")
        let check = harness.call("GET", "/v1/users/alice/issues/the-monthly/2020-03?at=2020-07-02T00:00:00Z")
        #expect(check.status == 200, "\(check.body)")
        #expect(receiver.answered == 0)
        receiver.release()
        harness.service.outbound.stop()
        #expect(try Self.deliveries(harness, "?status=delivered").count == 1)
    }

    @Test func theSecret_isInNoLogLine_metric_healthAnswerOrListing() throws {
        let receiver = try WebhookReceiver()
        let harness = try Self.harness(.sqlite, receiver)
        defer { harness.close() }
        let lines = Mutex<[String]>([])
        harness.service.outbound.logLines { line in lines.withLock { $0.append(line) } }
        try Self.enqueue(harness, receiver, "e-1", user: "ana")
        try Self.enqueue(harness, receiver, "e-2", user: "ben")
        receiver.fail(next: 1)
        let deliverer = OutboundDeliverer(service: harness.service)
        _ = try deliverer.deliverNext()
        _ = try deliverer.deliverNext()
        let texts = [
            lines.withLock { $0.joined(separator: "\n") }, harness.call("GET", "/metrics").body, harness.call("GET", "/health").body,
            harness.call("GET", "/v1/webhooks/deliveries", token: "admin-token").body,
        ]
        // The retry is logged, the delivery only counted.
        #expect(lines.withLock { $0.count } == 1)
        for text in texts { #expect(!text.contains(Self.secret), "\(text)") }
    }

    @Test func metrics_countOutcomes_pendingAndTheOldestPendingAge() throws {
        let receiver = try WebhookReceiver()
        let harness = try Self.harness(.sqlite, receiver)
        defer { harness.close() }
        try Self.enqueue(harness, receiver, "ana-1", user: "ana")
        try Self.enqueue(harness, receiver, "ben-1", user: "ben")
        receiver.fail(next: 1)
        let deliverer = OutboundDeliverer(service: harness.service)
        _ = try deliverer.deliverNext()
        _ = try deliverer.deliverNext()
        Self.advance(harness, milliseconds: 5_000)
        let metrics = harness.call("GET", "/metrics").body
        for line in [
            #"masthead_webhook_deliveries_total{outcome="delivered"} 1"#, #"masthead_webhook_deliveries_total{outcome="retried"} 1"#,
            #"masthead_webhook_deliveries_total{outcome="failed"} 0"#, "masthead_webhook_pending 1", "masthead_webhook_failed 0",
            "masthead_webhook_oldest_pending_seconds 5",
        ] {
            #expect(metrics.contains(line + "\n"), "\(line)")
        }
    }

    @Test func stop_finishesTheRequestInFlight_recordsIt_andClaimsNoMore() throws {
        let receiver = try WebhookReceiver()
        receiver.plan { $0.holding = true }
        let harness = try Self.harness(.sqlite, receiver, threads: 1)
        defer { harness.close() }
        try Self.enqueue(harness, receiver, "ana-1", user: "ana")
        try Self.enqueue(harness, receiver, "ben-1", user: "ben")
        harness.service.startDeliveringOutbound()
        #expect(receiver.waitFor(1).count == 1)
        let stopped = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            harness.service.outbound.stop()
            stopped.signal()
        }
        // Generous bound: the flag is set at once.
        for _ in 0..<3000 where !harness.service.outbound.isStopping { usleep(1000) }
        #expect(harness.service.outbound.isStopping)
        receiver.release()
        #expect(stopped.wait(timeout: .now() + 30) == .success)
        #expect(try Self.deliveries(harness, "?status=delivered").map { $0["eventId"]?.string } == ["ana-1"])
        let pending = try Self.deliveries(harness, "?status=pending")
        #expect(pending.map { $0["eventId"]?.string } == ["ben-1"])
        #expect(pending.first?["attempts"]?.int64 == 0)
        #expect(receiver.received.count == 1)
    }

    @Test func retention_deletesFinishedMessages_webhookRetentionDaysAfterTheyFinished() throws {
        let receiver = try WebhookReceiver()
        let harness = try Self.harness(.sqlite, receiver)
        defer { harness.close() }
        try Self.enqueue(harness, receiver, "ana-1", user: "ana")
        try Self.enqueue(harness, receiver, "ben-1", user: "ben")
        let deliverer = OutboundDeliverer(service: harness.service)
        _ = try deliverer.deliverNext()
        _ = try deliverer.deliverNext()
        Self.advance(harness, milliseconds: 7 * 86_400_000)
        #expect(try harness.service.pruneOutbound() == 0)
        Self.advance(harness, milliseconds: 1)
        // The newest is kept, so that ids keep growing.
        #expect(try harness.service.pruneOutbound() == 1)
        #expect(try Self.deliveries(harness).map { $0["eventId"]?.string } == ["ben-1"])
    }
}
