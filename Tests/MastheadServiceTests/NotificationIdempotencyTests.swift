import Foundation
import Masthead
import MastheadFormats
import MastheadJSON
@testable import MastheadService
import MastheadStorage
import Synchronization
import Testing

/// A notification delivered twice with the same `notificationUUID` is stored and applied once;
/// both deliveries succeed.
struct NotificationIdempotencyTests {
    /// Posts a notification through the service and waits for the outcome.
    static func post(_ harness: ServiceHarness, _ json: String, uuid: String?) throws -> EntitlementService.NotificationOutcome {
        let body = Array(json.utf8)
        let notification = try NotificationDecoder(catalog: harness.service.catalog).decode(try JSONDocument(parsing: body).root)
        let outcome = Mutex<Result<EntitlementService.NotificationOutcome, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        harness.service.postNotification(notification, type: "DID_RENEW", subtype: "AUTO_RENEW_ENABLED", uuid: uuid, body: body, contentType: nil) { result in
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        return try outcome.withLock { $0! }.get()
    }

    static func notificationsCounted(_ harness: ServiceHarness) -> String? {
        harness.call("GET", "/metrics").body.split(separator: "\n").first { $0.hasPrefix("masthead_notifications_total{") }.map(String.init)
    }

    @Test func sameUUIDTwice_isStoredOnce_andBothSucceed() throws {
        let harness = try ServiceHarness()
        defer { harness.close() }
        let renewal = ServiceRouterTests.transaction("d2", original: "d1", from: "2020-06-17T12:00:00Z", to: "2020-07-17T12:00:00Z")
        let json = ServiceRouterTests.notification("DID_RENEW", transactions: [renewal])
        let uuid = "002e14d5-51f5-4503-b5a8-c3a1af68eb20"
        #expect(try Self.post(harness, json, uuid: uuid) == .stored)
        #expect(try Self.post(harness, json, uuid: uuid) == .alreadyStored)
        let store = try SQLiteStore(path: harness.path, readOnly: true)
        #expect(try store.notificationCount() == 1)
        #expect(try store.hasNotification(uuid: uuid))
        #expect(Self.notificationsCounted(harness) == #"masthead_notifications_total{type="DID_RENEW"} 1"#)
        // A second delivery is not a store failure.
        #expect(harness.call("GET", "/health").status == 200)
        // Another uuid is another notification.
        #expect(try Self.post(harness, json, uuid: "5ee7a1a4-0000-4000-8000-000000000000") == .stored)
        #expect(try store.notificationCount() == 2)
    }

    /// Notifications without a uuid (version 1) are stored at each delivery, as before.
    @Test func withoutUUID_isStoredEveryTime() throws {
        let harness = try ServiceHarness()
        defer { harness.close() }
        let json = ServiceRouterTests.notification("DID_RENEW", transactions: [])
        for _ in 0..<2 { #expect(try Self.post(harness, json, uuid: nil) == .stored) }
        #expect(try SQLiteStore(path: harness.path, readOnly: true).notificationCount() == 2)
    }
}
