import Foundation
import Masthead
import MastheadHTTP
@testable import MastheadService
import MastheadSQLite
import MastheadStorage
import MastheadTestSupport
import Synchronization
import Testing

/// Apple's notifications written to the outbox for each `forwardNotificationsTo` target in the
/// transaction that stores them: the body's exact bytes and content type, only when stored.
struct NotificationForwardingTests {
    static let targets = ["http://staging.example.com/apple", "https://mirror.example.net/notifications?env=prod"]

    static func harness(targets: [String] = NotificationForwardingTests.targets) throws -> ServiceHarness {
        try ServiceHarness { configuration in
            SignedFixtures.configure(&configuration)
            configuration.forwardNotificationsTo = targets
        }
    }

    /// A version 1 notification, with spacing no writer would choose: forwarded as it is, not re-encoded.
    static func v1Body() -> [UInt8] {
        let renewal = ServiceRouterTests.transaction("f2", original: "f1", from: "2020-06-17T12:00:00Z", to: "2020-07-17T12:00:00Z")
        return Array(ServiceRouterTests.notification("DID_RENEW", transactions: [renewal]).replacingOccurrences(of: ", ", with: " ,\n\t").utf8)
    }

    /// A version 2 notification (a new `notificationUUID` each time), spaced as no writer would.
    static func v2Body() throws -> [UInt8] {
        Array(try SignedFixtures.notification("DID_CHANGE_RENEWAL_PREF", signed: "2020-07-01T00:00:00Z").replacingOccurrences(of: ": ", with: " :  ").utf8)
    }

    /// Posts a notification with this `Content-Type` (none when nil) and waits for the answer.
    static func post(_ harness: ServiceHarness, _ body: [UInt8], contentType: String?) -> Int {
        let headers = contentType.map { [("Content-Type", $0)] } ?? []
        let status = Mutex(0)
        let done = DispatchSemaphore(value: 0)
        harness.router.handle(HTTPRequest(method: "POST", target: "/v1/notifications/app-store", headers: headers, body: body)) { response in
            status.withLock { $0 = response.status }
            done.signal()
        }
        done.wait()
        return status.withLock { $0 }
    }

    /// Every message of the outbox, oldest first.
    static func outbox(_ harness: ServiceHarness) throws -> [OutboundMessage] {
        try SQLiteStore(path: harness.path, readOnly: true).outboundDeliveries(state: nil, before: nil, limit: 100, withBodies: true).sorted { $0.id < $1.id }.map(\.message)
    }

    static func isLowerCaseUUID(_ text: String) -> Bool {
        UUID(uuidString: text) != nil && text == text.lowercased()
    }

    @Test func v1AndV2Notifications_areWrittenForEachTarget_asTheirExactBytes_withTheirContentType() throws {
        let harness = try Self.harness(targets: Self.targets)
        defer { harness.close() }
        let v1 = Self.v1Body()
        let v2 = try Self.v2Body()
        #expect(Self.post(harness, v1, contentType: "application/json; charset=utf-8") == 200)
        #expect(Self.post(harness, v2, contentType: "application/json") == 200)

        let messages = try Self.outbox(harness)
        try #require(messages.count == 2 * Self.targets.count, "\(messages.count) messages")
        #expect(messages.map(\.target) == Self.targets + Self.targets)
        #expect(messages.allSatisfy { $0.kind == .forward && $0.orderingKey == nil })
        #expect(messages.map(\.body) == [v1, v1, v2, v2])
        #expect(messages.map(\.contentType) == ["application/json; charset=utf-8", "application/json; charset=utf-8", "application/json", "application/json"])
        // One idempotency id per notification, the same for every target's copy.
        #expect(messages.allSatisfy { Self.isLowerCaseUUID($0.eventId) }, "\(messages.map(\.eventId))")
        #expect(messages[0].eventId == messages[1].eventId && messages[2].eventId == messages[3].eventId)
        #expect(messages[0].eventId != messages[2].eventId)
    }

    /// Delivered to a real receiving server: the V1 and V2 bodies byte for byte with their content
    /// types, at the target's path; a refused notification posted between them never arrives.
    @Test func v1AndV2Notifications_arriveAtTheReceiver_byteForByte_andARefusedOneDoesNot() throws {
        let receiver = try WebhookReceiver()
        let harness = try Self.harness(targets: [receiver.url("/apple/production")])
        defer { harness.close() }
        let v1 = Self.v1Body()
        let v2 = try Self.v2Body()
        #expect(Self.post(harness, v1, contentType: "application/json; charset=utf-8") == 200)
        let forged = SignedFixtures.body(SignedFixtures.tampered(try SignedFixtures.payload("DID_CHANGE_RENEWAL_PREF", signed: "2020-07-01T00:00:00Z")))
        #expect(Self.post(harness, Array(forged.utf8), contentType: "application/json") == 401)
        #expect(Self.post(harness, v2, contentType: "application/json") == 200)

        let deliverer = OutboundDeliverer(service: harness.service)
        while let attempt = try deliverer.deliverNext() { #expect(attempt.outcome == .delivered(status: 200)) }
        let received = receiver.received
        let bodies: Set<[UInt8]> = Set(received.map(\.body))
        #expect(received.count == 2)
        #expect(bodies == [v1, v2])
        for delivery in received {
            #expect(delivery.method == "POST")
            #expect(delivery.target == "/apple/production")
            let expected = delivery.body == v1 ? "application/json; charset=utf-8" : "application/json"
            #expect(delivery.header("Content-Type") == expected)
            #expect(delivery.header("Masthead-Event-Id").map(Self.isLowerCaseUUID) == true)
        }
    }

    /// A notification posted without a `Content-Type` is forwarded as `application/json` (it was
    /// read as JSON), and one that cannot be read but is stored (its raw body kept) is forwarded too.
    @Test func notificationWithoutContentType_isForwardedAsJSON_andAnUnreadableStoredOneToo() throws {
        let harness = try Self.harness()
        defer { harness.close() }
        let unreadable = Array(#"{"notification_type": "DID_RENEW", "password": "shared-secret", "unified_receipt": {"latest_receipt_info": "not an array"}}"#.utf8)
        #expect(Self.post(harness, unreadable, contentType: nil) == 200)
        let messages = try Self.outbox(harness)
        #expect(messages.map(\.body) == [unreadable, unreadable])
        #expect(messages.map(\.contentType) == ["application/json", "application/json"])
    }

    /// Refused notifications — a wrong shared secret, a signature that fails, a body that is not
    /// JSON — are not stored, so not forwarded.
    @Test func refusedNotifications_areNotForwarded() throws {
        let harness = try Self.harness()
        defer { harness.close() }
        let wrongSecret = ServiceRouterTests.notification("DID_RENEW", password: "guess", transactions: [])
        let payload = try SignedFixtures.payload("DID_CHANGE_RENEWAL_PREF", signed: "2020-07-01T00:00:00Z")
        let forged = SignedFixtures.body(SignedFixtures.tampered(payload))
        #expect(Self.post(harness, Array(wrongSecret.utf8), contentType: "application/json") == 401)
        #expect(Self.post(harness, Array(forged.utf8), contentType: "application/json") == 401)
        #expect(Self.post(harness, Array("{not json".utf8), contentType: "application/json") == 400)
        #expect(try Self.outbox(harness).isEmpty)
    }

    /// Apple's second delivery of a version 2 notification (same `notificationUUID`) is answered
    /// 200 but stores nothing, so it is not forwarded again.
    @Test func secondDeliveryOfAV2Notification_isNotForwardedAgain() throws {
        let harness = try Self.harness()
        defer { harness.close() }
        let body = Array(try SignedFixtures.notification("DID_CHANGE_RENEWAL_PREF", signed: "2020-07-01T00:00:00Z").utf8)
        #expect(Self.post(harness, body, contentType: "application/json") == 200)
        #expect(Self.post(harness, body, contentType: "application/json") == 200)
        #expect(try Self.outbox(harness).count == Self.targets.count)
    }

    /// With no target, nothing is written to the outbox.
    @Test func noTargets_forwardNothing() throws {
        let harness = try ServiceHarness { SignedFixtures.configure(&$0) }
        defer { harness.close() }
        let body = Array(try SignedFixtures.notification("DID_CHANGE_RENEWAL_PREF", signed: "2020-07-01T00:00:00Z").utf8)
        #expect(Self.post(harness, body, contentType: "application/json") == 200)
        #expect(try Self.outbox(harness).isEmpty)
    }
}
