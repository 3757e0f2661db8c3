import Foundation
import Masthead
import MastheadPostgreSQL
import MastheadSQLite
@testable import MastheadStorage
import MastheadTestSupport
import Testing

/// What support tools read of the store, on both backends: the users a text names (by the bytes
/// of each id) and a user's notifications, found through the index of notifications by
/// subscription, filled on insert and backfilled by its migration.
struct SupportStoreTests {
    static let precomposed = "caf\u{E9}"
    static let decomposed = "cafe\u{301}"
    static let token = "3f2504e0-4f89-41d3-9a0c-0305e82c3301"

    static func at(_ milliseconds: Int64) -> Instant { Instant(milliseconds: milliseconds) }

    /// A subscription `original` of `environment` linked to `userId`, with its transaction `transactionId`.
    static func link(_ store: any EntitlementStore, _ userId: String, original: String, transactionId: String, environment: Environment = .production) throws {
        let transaction = Transaction(
            transactionId: transactionId, originalTransactionId: original, productId: "monthly", purchase: at(0), expires: at(1000),
            environment: environment)
        _ = try store.inTransaction { () throws(StorageError) in
            try store.save(transactions: [transaction], renewals: [])
            return try store.link(userId: userId, transactions: [transaction], latestReceipt: nil, restore: .keep, now: at(5))
        }
    }

    static func notify(_ store: any EntitlementStore, _ type: String, ids: [String], environment: Environment? = .production, signed: Bool = false, at ms: Int64) throws {
        _ = try store.inTransaction { () throws(StorageError) in
            try store.recordNotification(
                type: type, subtype: nil, uuid: nil, environment: environment, originalTransactionIds: ids, body: "{}", signed: signed, received: at(ms))
        }
    }

    @Test(arguments: StoreBackend.tested) func lookup_findsEachKind_sortedByUserThenKind(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        try Self.link(store, "ana", original: "s1", transactionId: "s1")
        try Self.link(store, "ana", original: "s1", transactionId: "t2")
        try Self.link(store, "bob", original: "s1", transactionId: "s1", environment: .sandbox)
        _ = try store.inTransaction { () throws(StorageError) in try store.linkAppAccountToken(Self.token, userId: "bob", now: Self.at(6)) }
        let grant = Grant(grantId: "bob", source: "print", scope: .span(publications: ["weekly"], access: .archive, window: nil), start: Self.at(0))
        _ = try store.inTransaction { () throws(StorageError) in try store.putGrant(grant, userId: "ana", now: Self.at(7)) }

        #expect(try store.lookup("s1") == [
            LookupMatch(userId: "ana", kind: .originalTransactionId, environment: .production),
            LookupMatch(userId: "ana", kind: .transactionId, environment: .production),
            LookupMatch(userId: "bob", kind: .originalTransactionId, environment: .sandbox),
            LookupMatch(userId: "bob", kind: .transactionId, environment: .sandbox),
        ])
        #expect(try store.lookup("t2") == [LookupMatch(userId: "ana", kind: .transactionId, environment: .production)])
        #expect(try store.lookup("bob") == [LookupMatch(userId: "ana", kind: .grantId), LookupMatch(userId: "bob", kind: .userId)])
        #expect(try store.lookup(Self.token.uppercased()) == [LookupMatch(userId: "bob", kind: .appAccountToken)])
        #expect(try store.lookup("nobody").isEmpty)
        #expect(try store.subscriptions(forUser: "ana") == [LinkedSubscription(environment: .production, originalTransactionId: "s1", linked: Self.at(5))])
    }

    /// Two Unicode spellings of one text are two ids: a lookup of one never finds the other.
    @Test(arguments: StoreBackend.tested) func lookup_comparesBytes_NFCIsNotNFD(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        try Self.link(store, Self.precomposed, original: Self.precomposed, transactionId: Self.precomposed)
        let found = try store.lookup(Self.precomposed)
        #expect(found.map(\.kind) == [.originalTransactionId, .transactionId, .userId])
        #expect(found.allSatisfy { $0.userId.sameBytes(as: Self.precomposed) })
        #expect(try store.lookup(Self.decomposed).isEmpty)
    }

    @Test(arguments: StoreBackend.tested) func notifications_ofAUser_newestFirst_capped_andNeverAnotherUsers(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        try Self.link(store, "ana", original: "s1", transactionId: "s1")
        try Self.link(store, "bob", original: "s2", transactionId: "s2")
        try Self.link(store, "cy", original: Self.decomposed, transactionId: Self.decomposed)
        try Self.notify(store, "DID_RENEW", ids: ["s1"], at: 10)
        try Self.notify(store, "REFUND", ids: ["s2"], at: 20)
        try Self.notify(store, "SUBSCRIBED", ids: ["s1", "s2"], signed: true, at: 30)
        try Self.notify(store, "EXPIRED", ids: ["s1"], environment: .sandbox, at: 40)
        try Self.notify(store, "DID_CHANGE_RENEWAL_STATUS", ids: ["s1"], at: 30)
        try Self.notify(store, "INTERACTIVE_RENEWAL", ids: [Self.precomposed], at: 50)
        try Self.notify(store, "CANCEL", ids: ["s1"], environment: nil, at: 60)

        let ana = try store.notifications(forUser: "ana", limit: 10)
        #expect(ana.map(\.type) == ["DID_CHANGE_RENEWAL_STATUS", "SUBSCRIBED", "DID_RENEW"])
        #expect(ana.map(\.signed) == [false, true, false])
        #expect(ana[1].originalTransactionIds == ["s1", "s2"])
        #expect(ana[1].environment == .production)
        #expect(try store.notifications(forUser: "ana", limit: 2).map(\.type) == ["DID_CHANGE_RENEWAL_STATUS", "SUBSCRIBED"])
        #expect(try store.notifications(forUser: "bob", limit: 10).map(\.type) == ["SUBSCRIBED", "REFUND"])
        #expect(try store.notifications(forUser: "cy", limit: 10).isEmpty)
        #expect(try store.notifications(forUser: "nobody", limit: 10).isEmpty)
    }

    /// The support migration (SQLite's 13th, PostgreSQL's 9th): notifications stored before it are
    /// indexed under each subscription their comma-joined ids name, and those whose body is a
    /// version 2 `signedPayload` read as signed.
    @Test(arguments: StoreBackend.tested) func supportMigration_indexesStoredNotifications_andTellsSignedBodies(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let latest = try fixture.migrate(sqlite: 12, postgreSQL: 8)
        let v2 = #"{ "signedPayload" : "eyJ.x.y"}"#
        let v1 = #"{"notification_type": "DID_RENEW", "password": "x", "environment": "PROD", "unified_receipt": {"signedPayload": "nested"}}"#
        try fixture.execute("""
            INSERT INTO users VALUES ('ana', 0);
            INSERT INTO users VALUES ('bob', 0);
            INSERT INTO subscriptions VALUES ('production', 's1', 'ana', NULL, 0);
            INSERT INTO subscriptions VALUES ('production', 's2', 'bob', NULL, 0);
            INSERT INTO notifications (received_ms, notification_type, environment, original_transaction_ids, body)
            VALUES (10, 'DID_RENEW', 'production', 's1', '\(v1)');
            INSERT INTO notifications (received_ms, notification_type, subtype, notification_uuid, environment, original_transaction_ids, body)
            VALUES (20, 'SUBSCRIBED', 'RESUBSCRIBE', 'u-1', 'production', 's2,s1', '\(v2)');
            INSERT INTO notifications (received_ms, notification_type, environment, original_transaction_ids, body)
            VALUES (30, 'REFUND', 'production', 's2', '{}');
            INSERT INTO notifications (received_ms, notification_type, environment, original_transaction_ids, body)
            VALUES (40, 'CANCEL', NULL, '', 'not json');
            INSERT INTO notifications (received_ms, notification_type, environment, original_transaction_ids, body)
            VALUES (50, 'EXPIRED', 'sandbox', 's1', '{}');
            """)
        let store = try fixture.open()
        #expect(try fixture.scalar("SELECT max(version) FROM migrations") == .integer(Int64(latest)))
        let ana = try store.notifications(forUser: "ana", limit: 10)
        #expect(ana == [
            StoredNotification(
                id: ana.first?.id ?? 0, received: Self.at(20), type: "SUBSCRIBED", subtype: "RESUBSCRIBE", environment: .production, signed: true,
                uuid: "u-1", originalTransactionIds: ["s2", "s1"]),
            StoredNotification(
                id: ana.last?.id ?? 0, received: Self.at(10), type: "DID_RENEW", subtype: nil, environment: .production, signed: false, uuid: nil,
                originalTransactionIds: ["s1"]),
        ])
        #expect(try store.notifications(forUser: "bob", limit: 10).map(\.type) == ["REFUND", "SUBSCRIBED"])
        // A notification stored after the migration is indexed as it is inserted.
        try Self.notify(store, "DID_FAIL_TO_RENEW", ids: ["s1"], signed: true, at: 60)
        #expect(try store.notifications(forUser: "ana", limit: 1).map(\.type) == ["DID_FAIL_TO_RENEW"])
        #expect(try store.notifications(forUser: "ana", limit: 1).map(\.signed) == [true])
    }
}
