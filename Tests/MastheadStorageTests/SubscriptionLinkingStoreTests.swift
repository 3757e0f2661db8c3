import Foundation
import Masthead
import MastheadSQLite
import MastheadStorage
import MastheadTestSupport
import Testing

/// Signed transactions' subscriptions linked by app account token, on first sight or once the
/// token is linked.
struct SubscriptionLinkingStoreTests {
    static let token = "3f2504e0-4f89-41d3-9a0c-0305e82c3301"
    static let now = Instant(milliseconds: 10)

    static func transaction(_ original: String) -> Transaction {
        Transaction(transactionId: original, productId: "monthly", purchase: Instant(milliseconds: 0), expires: Instant(milliseconds: 1000), signedDate: Instant(milliseconds: 5))
    }

    @Test(arguments: StoreBackend.tested) func linkSubscription_linksToTheTokensOwner_onFirstSight(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        _ = try store.linkAppAccountToken(Self.token, userId: "ana", now: Self.now)
        try store.save(transactions: [Self.transaction("s1")], renewals: [])
        #expect(try store.linkSubscription(environment: .production, originalTransactionId: "s1", appAccountToken: Self.token.uppercased(), now: Self.now) == "ana")
        #expect(try store.history(forUser: "ana").transactions.map(\.transactionId) == ["s1"])
        // The sandbox subscription of the same id is another subscription (R14).
        #expect(try store.users(linkedTo: ["s1"], environment: .sandbox).isEmpty)
    }

    @Test(arguments: StoreBackend.tested) func linkSubscription_keepsTheUserItIsLinkedTo(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        _ = try store.linkAppAccountToken(Self.token, userId: "ana", now: Self.now)
        _ = try store.link(userId: "ben", transactions: [Self.transaction("s1")], latestReceipt: nil, restore: .transfer, now: Self.now)
        #expect(try store.linkSubscription(environment: .production, originalTransactionId: "s1", appAccountToken: Self.token, now: Self.now) == "ben")
        #expect(try store.linkSubscription(environment: .production, originalTransactionId: "s1", appAccountToken: nil, now: Self.now) == "ben")
        #expect(try store.users(linkedTo: ["s1"], environment: .production) == ["ben"])
    }

    @Test(arguments: StoreBackend.tested) func linkSubscription_withoutAnOwner_staysUnlinked_untilTheTokenIsLinked(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        try store.save(transactions: [Self.transaction("s1"), Self.transaction("s2")], renewals: [])
        #expect(try store.linkSubscription(environment: .production, originalTransactionId: "s1", appAccountToken: Self.token, now: Self.now) == nil)
        #expect(try store.linkSubscription(environment: .production, originalTransactionId: "s2", appAccountToken: nil, now: Self.now) == nil)
        // Seen twice: remembered once.
        #expect(try store.linkSubscription(environment: .production, originalTransactionId: "s1", appAccountToken: Self.token, now: Self.now) == nil)
        #expect(try store.users(linkedTo: ["s1", "s2"], environment: .production).isEmpty)
        _ = try store.linkAppAccountToken(Self.token, userId: "ana", now: Self.now)
        #expect(try store.history(forUser: "ana").transactions.map(\.transactionId) == ["s1"])
        #expect(try store.users(linkedTo: ["s2"], environment: .production).isEmpty)
    }

    @Test(arguments: StoreBackend.tested) func linkingTheToken_leavesASubscriptionLinkedMeanwhileToAnotherUser(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        try store.save(transactions: [Self.transaction("s1")], renewals: [])
        #expect(try store.linkSubscription(environment: .production, originalTransactionId: "s1", appAccountToken: Self.token, now: Self.now) == nil)
        _ = try store.link(userId: "ben", transactions: [Self.transaction("s1")], latestReceipt: nil, restore: .transfer, now: Self.now)
        _ = try store.linkAppAccountToken(Self.token, userId: "ana", now: Self.now)
        #expect(try store.users(linkedTo: ["s1"], environment: .production) == ["ben"])
        #expect(try store.history(forUser: "ana").transactions.isEmpty)
    }

    @Test(arguments: StoreBackend.tested) func linkSubscription_ignoresATokenThatIsNotAUUID(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        #expect(try store.linkSubscription(environment: .production, originalTransactionId: "s1", appAccountToken: "not-a-uuid", now: Self.now) == nil)
        #expect(try fixture.scalar("SELECT count(*) FROM subscription_app_account_tokens") == .integer(0))
    }
}
