import Foundation
import Masthead
import MastheadSQLite
import MastheadStorage
import MastheadTestSupport
import Testing

/// Notifications kept once per `notificationUUID`, and the bodies refused for their signature,
/// kept within their bound.
struct NotificationStoreTests {
    static func record(_ store: any EntitlementStore, uuid: String?, type: String = "DID_RENEW", subtype: String? = nil) throws(StorageError) -> Int64 {
        try store.recordNotification(
            type: type, subtype: subtype, uuid: uuid, environment: .production, originalTransactionIds: ["a"], body: "{}", signed: true, received: Instant(milliseconds: 1))
    }

    @Test(arguments: StoreBackend.tested) func recordNotification_withAUUIDStoredAlready_throws_andStoresOnce(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        let uuid = "002e14d5-51f5-4503-b5a8-c3a1af68eb20"
        #expect(try !store.hasNotification(uuid: uuid))
        let id = try Self.record(store, uuid: uuid, type: "DID_FAIL_TO_RENEW", subtype: "GRACE_PERIOD")
        #expect(try store.hasNotification(uuid: uuid))
        #expect(throws: StorageError.notificationAlreadyRecorded(uuid: uuid)) { try Self.record(store, uuid: uuid) }
        #expect(try fixture.scalar("SELECT count(*) FROM notifications") == .integer(1))
        #expect(try fixture.scalar("SELECT notification_type || ' ' || subtype || ' ' || notification_uuid FROM notifications WHERE id = \(id)")
            == .text("DID_FAIL_TO_RENEW GRACE_PERIOD \(uuid)"))
    }

    /// Version 1 notifications carry no uuid: each is stored.
    @Test(arguments: StoreBackend.tested) func recordNotification_withoutUUID_isStoredEveryTime(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        for _ in 0..<2 { _ = try Self.record(store, uuid: nil) }
        #expect(try fixture.scalar("SELECT count(*) FROM notifications") == .integer(2))
    }

    /// The unique index holds even for a writer that skips the store's check.
    @Test(arguments: StoreBackend.tested) func schema_refusesASecondNotificationWithTheSameUUID(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        _ = try Self.record(store, uuid: "u-1")
        #expect(throws: (any Error).self) {
            try fixture.execute("""
                INSERT INTO notifications (received_ms, notification_type, notification_uuid, original_transaction_ids, body) VALUES (2, 'TEST', 'u-1', '', '{}')
                """)
        }
    }

    @Test(arguments: StoreBackend.tested) func rejectedNotifications_keepEveryByte_newestFirst_bodiesOnlyWhenAsked(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        let first: [UInt8] = Array(#"{"signedPayload":"a.b.c"}"#.utf8)
        let second: [UInt8] = [0x00, 0xFF, 0xC3]
        let one = try store.recordRejectedNotification(kind: .signed, reason: "alg is none", body: first, now: Instant(milliseconds: 10))
        let two = try store.recordRejectedNotification(kind: .signed, reason: "bad signature", body: second, now: Instant(milliseconds: 20))
        #expect(try store.rejectedNotifications(limit: 10, withBodies: false) == [
            RejectedNotification(id: two, received: Instant(milliseconds: 20), reason: "bad signature", bodyBytes: 3, body: nil),
            RejectedNotification(id: one, received: Instant(milliseconds: 10), reason: "alg is none", bodyBytes: first.count, body: nil),
        ])
        #expect(try store.rejectedNotifications(limit: 1, withBodies: true) == [
            RejectedNotification(id: two, received: Instant(milliseconds: 20), reason: "bad signature", bodyBytes: 3, body: second)
        ])
        // Never applied: nothing else is stored.
        #expect(try fixture.scalar("SELECT count(*) FROM notifications") == .integer(0))
        #expect(try store.userCount() == 0)
    }

    @Test(arguments: StoreBackend.tested) func rejectedNotifications_keepTheNewestRows_withinTheRowBound(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open(retention: RejectedNotificationRetention(rows: 3, bytes: 1_000))
        var ids: [Int64] = []
        for index in 0..<7 { ids.append(try store.recordRejectedNotification(kind: .signed, reason: "r\(index)", body: [UInt8(index)], now: Instant(milliseconds: Int64(index)))) }
        #expect(try store.rejectedNotifications(limit: 100, withBodies: false).map(\.id) == Array(ids.suffix(3).reversed()))
        #expect(try store.rejectedNotifications(limit: 100, withBodies: true).map(\.body) == [[6], [5], [4]])
    }

    /// The bytes bound counts the bodies of the rows kept; the newest is kept even alone over it.
    @Test(arguments: StoreBackend.tested) func rejectedNotifications_keepTheNewest_withinTheByteBound_andAlwaysTheNewest(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open(retention: RejectedNotificationRetention(rows: 100, bytes: 10))
        var ids: [Int64] = []
        for index in 0..<4 { ids.append(try store.recordRejectedNotification(kind: .signed, reason: "r", body: Array(repeating: UInt8(index), count: 4), now: Instant(milliseconds: 1))) }
        // 4 + 4 = 8 bytes fit in 10; a third body would make 12.
        #expect(try store.rejectedNotifications(limit: 100, withBodies: false).map(\.id) == [ids[3], ids[2]])
        let ten = try store.recordRejectedNotification(kind: .signed, reason: "r", body: Array(repeating: 9, count: 10), now: Instant(milliseconds: 2))
        #expect(try store.rejectedNotifications(limit: 100, withBodies: false).map(\.id) == [ten])
        let big = try store.recordRejectedNotification(kind: .signed, reason: "r", body: Array(repeating: 7, count: 50), now: Instant(milliseconds: 3))
        #expect(try store.rejectedNotifications(limit: 100, withBodies: true).map(\.id) == [big])
        let small = try store.recordRejectedNotification(kind: .signed, reason: "r", body: [1, 2], now: Instant(milliseconds: 4))
        #expect(try store.rejectedNotifications(limit: 100, withBodies: false).map(\.id) == [small])
        let again = try store.recordRejectedNotification(kind: .signed, reason: "r", body: [3, 4, 5], now: Instant(milliseconds: 5))
        #expect(try store.rejectedNotifications(limit: 100, withBodies: false).map(\.id) == [again, small])
    }

    /// The bound holds across connections and reopening: what was recorded before still counts.
    @Test(arguments: StoreBackend.tested) func rejectedNotifications_bound_holdsAfterReopening(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let bound = RejectedNotificationRetention(rows: 2, bytes: 1_000)
        do {
            let store = try fixture.open(retention: bound)
            for index in 0..<2 { _ = try store.recordRejectedNotification(kind: .signed, reason: "r\(index)", body: [1], now: Instant(milliseconds: 1)) }
        }
        let reopened = try fixture.open(retention: bound)
        let last = try reopened.recordRejectedNotification(kind: .signed, reason: "r2", body: [1], now: Instant(milliseconds: 2))
        #expect(try reopened.rejectedNotifications(limit: 100, withBodies: false).map(\.reason) == ["r2", "r1"])
        #expect(last == 3)
    }

    /// A flood of malformed bodies cannot push out signed data refused for its signature (the
    /// evidence of a forgery): each kind is kept within its own bound.
    @Test(arguments: StoreBackend.tested) func rejectedNotifications_aFloodOfMalformedOnes_keepsTheSignedOnes(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open(retention: RejectedNotificationRetention(rows: 3, bytes: 1_000))
        let forged = try store.recordRejectedNotification(kind: .signed, reason: "invalid ES256 signature", body: [1], now: Instant(milliseconds: 1))
        var junk: [Int64] = []
        for index in 0..<10 { junk.append(try store.recordRejectedNotification(kind: .malformed, reason: "r", body: [UInt8(index)], now: Instant(milliseconds: 2))) }
        let kept = try store.rejectedNotifications(limit: 100, withBodies: false)
        #expect(kept.map(\.id) == Array(junk.suffix(3).reversed()) + [forged])
        #expect(kept.map(\.kind) == [.malformed, .malformed, .malformed, .signed])
    }

    /// Reasons count toward the byte bound with the bodies, and a long one is cut.
    @Test(arguments: StoreBackend.tested) func rejectedNotifications_reasonsCountTowardTheByteBound_andLongOnesAreCut(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open(retention: RejectedNotificationRetention(rows: 100, bytes: 20))
        let first = try store.recordRejectedNotification(kind: .signed, reason: String(repeating: "r", count: 8), body: [1, 2], now: Instant(milliseconds: 1))
        let second = try store.recordRejectedNotification(kind: .signed, reason: String(repeating: "s", count: 8), body: [3, 4], now: Instant(milliseconds: 2))
        // 10 + 10 bytes fit in 20.
        #expect(try store.rejectedNotifications(limit: 100, withBodies: false).map(\.id) == [second, first])
        let third = try store.recordRejectedNotification(kind: .signed, reason: "t", body: [5], now: Instant(milliseconds: 3))
        #expect(try store.rejectedNotifications(limit: 100, withBodies: false).map(\.id) == [third, second])
        _ = try store.recordRejectedNotification(kind: .signed, reason: String(repeating: "\u{E9}", count: 5_000), body: [], now: Instant(milliseconds: 4))
        let reason = try #require(try store.rejectedNotifications(limit: 1, withBodies: false).first?.reason)
        #expect(reason.utf8.count <= RejectedNotification.maxReasonBytes)
        #expect(reason == String(repeating: "\u{E9}", count: 510) + "…")
    }
}
