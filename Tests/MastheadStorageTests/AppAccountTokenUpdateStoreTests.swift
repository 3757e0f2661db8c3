import Foundation
import Masthead
import MastheadStorage
import MastheadTestSupport
import Testing

/// Set App Account Token calls in the store: queued once per subscription with the user's first
/// token, claimed by one connection at a time, closed with their outcome.
struct AppAccountTokenUpdateStoreTests {
    static let first = "3f2504e0-4f89-41d3-9a0c-0305e82c3301"
    static let second = "00000000-0000-4000-8000-000000000000"

    /// `userId` linked to subscription `original` through a posted purchase.
    static func link(_ store: any EntitlementStore, _ userId: String, _ original: String) throws {
        let transaction = StoreTests.transaction(original, original: original, from: 1_000, to: 2_000)
        try store.inTransaction { () throws(StorageError) in
            try store.save(transactions: [transaction], renewals: [])
            _ = try store.link(userId: userId, transactions: [transaction], latestReceipt: nil, restore: .transfer, now: Instant(milliseconds: 5))
        }
    }

    @Test(arguments: StoreBackend.tested) func queue_oncePerSubscription_withTheUsersFirstToken_onlyForItsOwner(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        try Self.link(store, "ana", "o1")
        try Self.link(store, "ben", "o2")
        let queue = { (user: String, originals: [String]) throws -> [String] in
            try store.inTransaction { () throws(StorageError) in
                try store.queueAppAccountTokenUpdates(userId: user, subscriptions: originals.map { (.production, $0) }, now: Instant(milliseconds: 100))
            }.map(\.originalTransactionId)
        }
        // No token yet: nothing owed.
        #expect(try queue("ana", ["o1"]) == [])
        _ = try store.inTransaction { () throws(StorageError) in try store.linkAppAccountToken(Self.second, userId: "ana", now: Instant(milliseconds: 20)) }
        _ = try store.inTransaction { () throws(StorageError) in try store.linkAppAccountToken(Self.first, userId: "ana", now: Instant(milliseconds: 10)) }
        // o2 is ben's; o3 is nobody's.
        #expect(try queue("ana", ["o1", "o2", "o3"]) == ["o1"])
        #expect(try queue("ana", ["o1"]) == [])
        #expect(try store.appAccountTokenUpdates().map(\.update) == [
            AppAccountTokenUpdate(environment: .production, originalTransactionId: "o1", userId: "ana", appAccountToken: Self.first, attempts: 0)
        ])
        // A subscription whose signed data carried a token (seen in a notification before anyone
        // owned the token) is owed nothing.
        _ = try store.inTransaction { () throws(StorageError) in
            try store.linkSubscription(
                environment: .production, originalTransactionId: "o4", appAccountToken: "6ba7b810-9dad-11d1-80b4-00c04fd430c8", now: Instant(milliseconds: 30))
        }
        try Self.link(store, "ana", "o4")
        #expect(try queue("ana", ["o4"]) == [])
    }

    @Test(arguments: StoreBackend.tested) func claim_takesADueCallOnce_untilItsOutcomeOrLease(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        let other = try fixture.open()
        try Self.link(store, "ana", "o1")
        _ = try store.inTransaction { () throws(StorageError) in try store.linkAppAccountToken(Self.first, userId: "ana", now: Instant(milliseconds: 10)) }
        _ = try store.inTransaction { () throws(StorageError) in
            try store.queueAppAccountTokenUpdates(userId: "ana", subscriptions: [(.production, "o1")], now: Instant(milliseconds: 100))
        }
        let claim = { (connection: any EntitlementStore, now: Int64) throws -> AppAccountTokenUpdate? in
            try connection.inTransaction { () throws(StorageError) in
                try connection.claimAppAccountTokenUpdate(now: Instant(milliseconds: now), retryAfter: Instant(milliseconds: now + 1_000))
            }
        }
        #expect(try claim(store, 99) == nil)
        #expect(try claim(store, 100)?.attempts == 1)
        // Claimed: not due for another connection until the lease ends.
        #expect(try claim(other, 500) == nil)
        #expect(try claim(other, 1_100)?.attempts == 2)
        try store.inTransaction { () throws(StorageError) in
            try store.recordAppAccountTokenUpdate(
                environment: .production, originalTransactionId: "o1", state: .pending, nextAttempt: Instant(milliseconds: 5_000), lastError: "HTTP 503")
        }
        #expect(try claim(store, 4_999) == nil)
        #expect(try claim(store, 5_000)?.attempts == 3)
        try store.inTransaction { () throws(StorageError) in
            try store.recordAppAccountTokenUpdate(environment: .production, originalTransactionId: "o1", state: .sent, nextAttempt: nil, lastError: nil)
        }
        #expect(try claim(other, 1_000_000) == nil)
        let stored = try #require(try other.appAccountTokenUpdates().first)
        #expect(stored.state == .sent)
        #expect(stored.update.attempts == 3)
        #expect(stored.lastError == nil)
    }
}
