import Foundation
import Masthead
import MastheadSQLite
@testable import MastheadStorage
import MastheadTestSupport
import Testing

/// Google Play purchases in the store (R18), on both backends: reads of a token upserted, chains
/// through `linkedPurchaseToken`, users, voids, message ids, acknowledgements, and the orders in
/// a user's history; tokens and ids by their bytes.
struct GooglePlayStoreTests {
    static func at(_ milliseconds: Int64) -> Instant { Instant(milliseconds: milliseconds) }

    static func order(
        _ token: String, _ orderId: String, start: Int64, expiry: Int64?, observed: Int64 = 0, environment: Environment = .production
    ) -> GooglePlayOrder {
        GooglePlayOrder(
            purchaseToken: token, orderId: orderId, productId: "monthly", start: at(start), expiry: expiry.map(at), environment: environment,
            observed: at(observed))
    }

    static func observation(
        _ token: String, linked: String? = nil, state: GooglePlaySubscriptionState = .active, acknowledged: Bool = true, account: String? = nil,
        orders: [GooglePlayOrder]
    ) -> GooglePlayObservation {
        GooglePlayObservation(
            purchaseToken: token, linkedPurchaseToken: linked, state: state, acknowledged: acknowledged, obfuscatedExternalAccountId: account,
            playProductId: "monthly_sub", orders: orders, unknownProductIds: [])
    }

    @discardableResult
    static func store(_ store: any EntitlementStore, _ observation: GooglePlayObservation, now: Int64, body: String = "{}") throws -> [String] {
        try store.inTransaction { () throws(StorageError) in
            try store.storeGooglePlayObservation(
                observation, packageName: "com.example.monthly", kind: .subscription, body: Array(body.utf8), now: at(now))
        }
    }

    static func link(_ store: any EntitlementStore, _ token: String, _ userId: String) throws -> GooglePlayLink {
        try store.inTransaction { () throws(StorageError) in try store.linkGooglePlayPurchase(token: token, to: userId) }
    }

    static func void(_ store: any EntitlementStore, _ token: String, _ orderId: String, at time: Int64, prorated: Bool, now: Int64 = 0) throws -> [String] {
        try store.inTransaction { () throws(StorageError) in
            try store.voidGooglePlayOrder(token: token, orderId: orderId, at: at(time), prorated: prorated, now: at(now))
        }
    }

    /// The (transaction id, original transaction id) of each transaction of a user's history.
    static func ids(_ store: any EntitlementStore, _ userId: String) throws -> [[String]] {
        try store.history(forUser: userId).transactions.map { [$0.transactionId, $0.originalTransactionId] }
    }

    @Test(arguments: StoreBackend.tested) func observation_keepsOrdersAndFirstObserved_andOnlyTheNewestReadChangesAnExpiry(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        try Self.store(store, Self.observation("tok", orders: [Self.order("tok", "GPA.1", start: 0, expiry: 1000, observed: 100)]), now: 100, body: "{\"a\":1}")
        // A later read: the order's expiry moved (Google says so), a renewal added.
        try Self.store(
            store,
            Self.observation(
                "tok", state: .canceled,
                orders: [Self.order("tok", "GPA.1", start: 5, expiry: 1500, observed: 200), Self.order("tok", "GPA.1..0", start: 1500, expiry: 2500, observed: 200)]),
            now: 200, body: "{\"b\":2}")
        // An older read committed late: adds the order it alone knows, changes nothing stored.
        try Self.store(
            store,
            Self.observation(
                "tok", state: .expired, orders: [Self.order("tok", "GPA.1", start: 0, expiry: 900, observed: 150), Self.order("tok", "GPA.0", start: -500, expiry: 0, observed: 150)]),
            now: 150, body: "{\"c\":3}")
        // A read naming only the latest order leaves the others as they are.
        try Self.store(store, Self.observation("tok", state: .canceled, orders: [Self.order("tok", "GPA.1..0", start: 1500, expiry: 2500, observed: 300)]), now: 300, body: "{\"b\":2}")
        #expect(
            try store.googlePlayOrders(token: "tok") == [
                Self.order("tok", "GPA.0", start: -500, expiry: 0, observed: 150), Self.order("tok", "GPA.1", start: 0, expiry: 1500, observed: 100),
                Self.order("tok", "GPA.1..0", start: 1500, expiry: 2500, observed: 200),
            ])
        let purchase = try #require(try store.googlePlayPurchase(token: "tok"))
        #expect(purchase.state == .canceled)
        #expect(purchase.body == Array("{\"b\":2}".utf8))
        #expect(purchase.observed == Self.at(100))
        #expect(purchase.lastRead == Self.at(300))
        #expect(purchase.kind == .subscription)
        #expect(purchase.packageName == "com.example.monthly")
        #expect(purchase.playProductId == "monthly_sub")
        #expect(purchase.chainId == "GPA.0")
    }

    @Test(arguments: StoreBackend.tested) func observation_answersTheUsersWhoseHistoryChanged_noneForTheSameReadAgain(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        let first = Self.observation("tok", orders: [Self.order("tok", "GPA.1", start: 0, expiry: 1000)])
        #expect(try Self.store(store, first, now: 10).isEmpty)
        #expect(try Self.link(store, "tok", "ana") == .linked)
        #expect(try Self.store(store, first, now: 20).isEmpty)
        #expect(try Self.store(store, Self.observation("tok", state: .canceled, orders: first.orders), now: 30).isEmpty)
        #expect(try Self.store(store, Self.observation("tok", orders: [Self.order("tok", "GPA.1", start: 0, expiry: 1200)]), now: 40) == ["ana"])
        #expect(try Self.store(store, Self.observation("tok", orders: [Self.order("tok", "GPA.1..0", start: 1200, expiry: 2200)]), now: 50) == ["ana"])
    }

    @Test(arguments: StoreBackend.tested) func chainOfThreeTokens_sharesTheFirstOrdersId_andTheUserLinkedToAnyOfThem(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        try Self.store(store, Self.observation("a", state: .expired, orders: [Self.order("a", "GPA.A", start: 0, expiry: 100)]), now: 10)
        #expect(try Self.link(store, "a", "ana") == .linked)
        // The resubscription names its predecessor: it joins the chain and its user.
        #expect(try Self.store(store, Self.observation("b", linked: "a", orders: [Self.order("b", "GPA.B", start: 200, expiry: 300)]), now: 20) == ["ana"])
        #expect(try Self.store(store, Self.observation("c", linked: "b", orders: [Self.order("c", "GPA.C", start: 300, expiry: 400)]), now: 30) == ["ana"])
        #expect(try store.googlePlayPurchase(token: "c")?.userId == "ana")
        #expect(try store.googlePlayPurchase(token: "c")?.chainId == "GPA.A")
        #expect(
            try Self.ids(store, "ana") == [
                ["googlePlay:GPA.A", "googlePlay:GPA.A"], ["googlePlay:GPA.B", "googlePlay:GPA.A"], ["googlePlay:GPA.C", "googlePlay:GPA.A"],
            ])
        #expect(try Self.link(store, "c", "ana") == .alreadyLinked)
    }

    @Test(arguments: StoreBackend.tested) func linkedTokenStoredBeforeItsPredecessor_takesThePredecessorsChainWhenItArrives(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        try Self.store(store, Self.observation("b", linked: "a", orders: [Self.order("b", "GPA.B", start: 200, expiry: 300)]), now: 10)
        #expect(try store.googlePlayPurchase(token: "b")?.chainId == "GPA.B")
        #expect(try Self.link(store, "b", "ana") == .linked)
        #expect(try Self.ids(store, "ana") == [["googlePlay:GPA.B", "googlePlay:GPA.B"]])
        #expect(try Self.store(store, Self.observation("a", state: .expired, orders: [Self.order("a", "GPA.A", start: 0, expiry: 100)]), now: 20) == ["ana"])
        #expect(try store.googlePlayPurchase(token: "a")?.userId == "ana")
        #expect(try Self.ids(store, "ana") == [["googlePlay:GPA.A", "googlePlay:GPA.A"], ["googlePlay:GPA.B", "googlePlay:GPA.A"]])
    }

    @Test(arguments: StoreBackend.tested) func tokenReplacedMidOrder_endsThereAsAnUpgrade_inTheHistory(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        try Self.store(store, Self.observation("a", state: .expired, orders: [Self.order("a", "GPA.A", start: 0, expiry: 1000)]), now: 10)
        try Self.store(store, Self.observation("b", linked: "a", orders: [Self.order("b", "GPA.B", start: 400, expiry: 1400)]), now: 20)
        #expect(try Self.link(store, "b", "ana") == .linked)
        let transactions = try store.history(forUser: "ana").transactions
        #expect(transactions.map(\.cancellation) == [Self.at(400), nil])
        #expect(transactions.map(\.isUpgraded) == [true, false])
        #expect(transactions.map(\.originalTransactionId) == ["googlePlay:GPA.A", "googlePlay:GPA.A"])
    }

    /// Google data whose links form a cycle is stored without the link that closes it (R18), so
    /// that its notification is not refused at every delivery; the chain stays one.
    @Test(arguments: StoreBackend.tested) func linkCycle_isStoredWithoutTheLinkThatClosesIt(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        try Self.store(store, Self.observation("a", linked: "c", orders: [Self.order("a", "GPA.A", start: 0, expiry: 100)]), now: 10)
        try Self.store(store, Self.observation("b", linked: "a", orders: [Self.order("b", "GPA.B", start: 100, expiry: 200)]), now: 10)
        #expect(try Self.link(store, "a", "ana") == .linked)
        #expect(try Self.store(store, Self.observation("c", linked: "b", orders: [Self.order("c", "GPA.C", start: 200, expiry: 300)]), now: 20) == ["ana"])
        let c = try #require(try store.googlePlayPurchase(token: "c"))
        #expect(c.linkedPurchaseToken == nil)
        #expect(c.userId == "ana")
        #expect(try store.googlePlayOrders(token: "c").map(\.orderId) == ["GPA.C"])
        #expect(try Self.ids(store, "ana").map { $0[1] } == Array(repeating: "googlePlay:GPA.C", count: 3))
        // Read again, the same: stored, the cycle still left open.
        try Self.store(store, Self.observation("c", linked: "b", orders: [Self.order("c", "GPA.C", start: 200, expiry: 300)]), now: 30)
        #expect(try store.googlePlayPurchase(token: "c")?.linkedPurchaseToken == nil)
        try Self.store(store, Self.observation("d", linked: "d", orders: [Self.order("d", "GPA.D", start: 0, expiry: 100)]), now: 20)
        #expect(try store.googlePlayPurchase(token: "d")?.linkedPurchaseToken == nil)
        #expect(try store.googlePlayPurchase(token: "d")?.chainId == "GPA.D")
    }

    /// A token whose read names another user (`obfuscatedExternalAccountId`), linked to a user's
    /// token through `linkedPurchaseToken`, is not given that user: it is the named user's (R18);
    /// nor can the chain's user take it.
    @Test(arguments: StoreBackend.tested) func tokenNamingAnotherUser_chainedToAUsersToken_staysTheNamedUsers(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        try Self.store(store, Self.observation("a", state: .expired, orders: [Self.order("a", "GPA.A", start: 0, expiry: 100)]), now: 10)
        #expect(try Self.link(store, "a", "ana") == .linked)
        // Another spelling of ana is another user.
        let bo = "ana\u{301}"
        try Self.store(store, Self.observation("b", linked: "a", account: bo, orders: [Self.order("b", "GPA.B", start: 200, expiry: 300)]), now: 20)
        #expect(try store.googlePlayPurchase(token: "b")?.userId?.utf8.elementsEqual(bo.utf8) == true)
        #expect(try Self.ids(store, "ana") == [["googlePlay:GPA.A", "googlePlay:GPA.A"]])
        #expect(try Self.ids(store, bo) == [["googlePlay:GPA.B", "googlePlay:GPA.B"]])
        #expect(try Self.link(store, "b", "ana") == .conflict(owner: bo))
        #expect(try Self.link(store, "b", bo) == .alreadyLinked)
        #expect(try Self.ids(store, "ana").count == 1)
    }

    /// A chain whose tokens name two users is not merged: each named token is its user's, and an
    /// unnamed one follows nobody (R18), nor may either user link it; a read naming the user of an
    /// unnamed chain gives the chain's unnamed tokens that user.
    @Test(arguments: StoreBackend.tested) func chainNamingTwoUsers_isNotMerged(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        try Self.store(store, Self.observation("a", state: .expired, account: "ana", orders: [Self.order("a", "GPA.A", start: 0, expiry: 100)]), now: 10)
        try Self.store(store, Self.observation("b", linked: "a", account: "bo", orders: [Self.order("b", "GPA.B", start: 200, expiry: 300)]), now: 20)
        try Self.store(store, Self.observation("c", linked: "b", orders: [Self.order("c", "GPA.C", start: 300, expiry: 400)]), now: 30)
        #expect(try store.googlePlayPurchase(token: "a")?.userId == "ana")
        #expect(try store.googlePlayPurchase(token: "b")?.userId == "bo")
        #expect(try store.googlePlayPurchase(token: "c")?.userId == nil)
        #expect(try Self.link(store, "c", "ana") == .conflict(owner: "bo"))
        #expect(try Self.link(store, "c", "bo") == .conflict(owner: "ana"))
        #expect(try Self.ids(store, "ana").map { $0[0] } == ["googlePlay:GPA.A"])
        #expect(try Self.ids(store, "bo").map { $0[0] } == ["googlePlay:GPA.B"])
        // One named user: the unnamed tokens of the chain are theirs.
        try Self.store(store, Self.observation("x", state: .expired, orders: [Self.order("x", "GPA.X", start: 0, expiry: 100)]), now: 10)
        #expect(try Self.store(store, Self.observation("y", linked: "x", account: "cy", orders: [Self.order("y", "GPA.Y", start: 100, expiry: 200)]), now: 20) == ["cy"])
        #expect(try store.googlePlayPurchase(token: "x")?.userId == "cy")
        #expect(try Self.ids(store, "cy").map { $0[0] } == ["googlePlay:GPA.X", "googlePlay:GPA.Y"])
    }

    @Test(arguments: StoreBackend.tested) func link_refusesAChainOfAnotherUser_andATokenNeverStored(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        #expect(try Self.link(store, "a", "ana") == .unknownToken)
        #expect(try !store.userExists("ana"))
        try Self.store(store, Self.observation("a", orders: [Self.order("a", "GPA.A", start: 0, expiry: 100)]), now: 10)
        try Self.store(store, Self.observation("b", linked: "a", orders: [Self.order("b", "GPA.B", start: 100, expiry: 200)]), now: 10)
        #expect(try Self.link(store, "b", "caf\u{E9}") == .linked)
        // Another spelling of the user is another user.
        #expect(try Self.link(store, "a", "cafe\u{301}") == .conflict(owner: "caf\u{E9}"))
        #expect(try store.googlePlayPurchase(token: "a")?.userId?.sameBytes(as: "caf\u{E9}") == true)
        #expect(try Self.ids(store, "cafe\u{301}").isEmpty)
        #expect(try Self.ids(store, "caf\u{E9}").count == 2)
    }

    @Test(arguments: StoreBackend.tested) func notificationTokenWithNoUser_linkedLater_isInTheUsersHistory(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        #expect(try Self.store(store, Self.observation("tok", orders: [Self.order("tok", "GPA.1", start: 1000, expiry: 2000)]), now: 1000).isEmpty)
        #expect(try store.googlePlayPurchase(token: "tok")?.userId == nil)
        #expect(try store.history(forUser: "ana").transactions.isEmpty)
        #expect(try Self.link(store, "tok", "ana") == .linked)
        #expect(try store.userExists("ana"))
        let transactions = try store.history(forUser: "ana").transactions
        #expect(
            transactions == [
                Transaction(
                    transactionId: "googlePlay:GPA.1", originalTransactionId: "googlePlay:GPA.1", productId: "monthly", purchase: Self.at(1000),
                    expires: Self.at(2000))
            ])
    }

    @Test(arguments: StoreBackend.tested) func tokensAndOrderIds_areTheirExactBytes(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        try Self.store(store, Self.observation("caf\u{E9}", orders: [Self.order("caf\u{E9}", "GPA.\u{E9}", start: 0, expiry: 100)]), now: 10)
        try Self.store(store, Self.observation("cafe\u{301}", orders: [Self.order("cafe\u{301}", "GPA.e\u{301}", start: 0, expiry: 200)]), now: 10)
        #expect(try Self.link(store, "caf\u{E9}", "ana") == .linked)
        #expect(try Self.link(store, "cafe\u{301}", "bo") == .linked)
        #expect(try store.googlePlayPurchase(token: "cafe\u{301}")?.chainId?.sameBytes(as: "GPA.e\u{301}") == true)
        #expect(try store.history(forUser: "ana").transactions.map { $0.transactionId.utf8.count } == ["googlePlay:GPA.\u{E9}".utf8.count])
        #expect(try store.history(forUser: "bo").transactions.map(\.expires) == [Self.at(200)])
    }

    @Test(arguments: StoreBackend.tested) func void_reportedAgain_theEarliestKept_andOneBeforeTheOrderAppliesWhenItIsRead(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        try Self.store(
            store,
            Self.observation("tok", orders: [Self.order("tok", "GPA.1", start: 0, expiry: 100), Self.order("tok", "GPA.1..0", start: 100, expiry: 200)]),
            now: 10)
        #expect(try Self.void(store, "tok", "GPA.1", at: 50, prorated: false).isEmpty)
        #expect(try Self.link(store, "tok", "ana") == .linked)
        #expect(try Self.void(store, "tok", "GPA.1..0", at: 150, prorated: true) == ["ana"])
        // Reported again (notification and poll): a later void changes nothing, an earlier one counts.
        #expect(try Self.void(store, "tok", "GPA.1..0", at: 160, prorated: true).isEmpty)
        #expect(try Self.void(store, "tok", "GPA.1..0", at: 140, prorated: true) == ["ana"])
        // A void of an order not read yet waits for it; the earliest reported counts.
        #expect(try Self.void(store, "tok", "GPA.1..1", at: 260, prorated: true).isEmpty)
        #expect(try Self.void(store, "tok", "GPA.1..1", at: 250, prorated: true).isEmpty)
        try Self.store(store, Self.observation("tok", orders: [Self.order("tok", "GPA.1..1", start: 200, expiry: 300)]), now: 270)
        // A read refunding an order (a cancelled one-time purchase) counts when earlier than the void.
        var refunded = Self.order("tok", "GPA.1", start: 0, expiry: 100)
        refunded.refunded = Self.at(60)
        try Self.store(store, Self.observation("tok", orders: [refunded]), now: 280)
        refunded.refunded = Self.at(40)
        try Self.store(store, Self.observation("tok", orders: [refunded]), now: 290)
        let transactions = try store.history(forUser: "ana").transactions
        #expect(transactions.map(\.cancellation) == [Self.at(40), Self.at(140), Self.at(250)])
        #expect(transactions.map(\.revocationType) == [.refundFull, .refundProrated, .refundProrated])
    }

    /// An order refunded in part and in full, in either order of arrival, is refunded in full
    /// (R5.1) from the earlier of the two (R18), whether the order was stored before the voids or
    /// read after them, and whether the full refund came as a void or as a read of a cancelled
    /// one-time purchase; a void that changes nothing reports no user.
    @Test(arguments: StoreBackend.tested) func void_partialAndFullOfOneOrder_refundItInFull_fromTheEarlier_inEitherOrder(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        try Self.store(
            store,
            Self.observation(
                "tok",
                orders: [
                    Self.order("tok", "GPA.1", start: 0, expiry: 100), Self.order("tok", "GPA.1..0", start: 100, expiry: 200),
                    Self.order("tok", "GPA.1..1", start: 200, expiry: 300),
                ]),
            now: 10)
        #expect(try Self.link(store, "tok", "ana") == .linked)
        // Stored order, partial then full: full from the partial's instant.
        #expect(try Self.void(store, "tok", "GPA.1..0", at: 150, prorated: true) == ["ana"])
        #expect(try Self.void(store, "tok", "GPA.1..0", at: 160, prorated: false) == ["ana"])
        #expect(try Self.void(store, "tok", "GPA.1..0", at: 170, prorated: false).isEmpty)
        #expect(try Self.void(store, "tok", "GPA.1..0", at: 155, prorated: true).isEmpty)
        // Stored order, full then partial: an earlier partial moves the full refund's instant only.
        #expect(try Self.void(store, "tok", "GPA.1..1", at: 260, prorated: false) == ["ana"])
        #expect(try Self.void(store, "tok", "GPA.1..1", at: 250, prorated: true) == ["ana"])
        #expect(try Self.void(store, "tok", "GPA.1..1", at: 270, prorated: true).isEmpty)
        // Voids before the order is read, in each order of arrival.
        #expect(try Self.void(store, "tok", "GPA.1..2", at: 350, prorated: true).isEmpty)
        #expect(try Self.void(store, "tok", "GPA.1..2", at: 360, prorated: false).isEmpty)
        #expect(try Self.void(store, "tok", "GPA.1..3", at: 460, prorated: false).isEmpty)
        #expect(try Self.void(store, "tok", "GPA.1..3", at: 450, prorated: true).isEmpty)
        try Self.store(
            store, Self.observation("tok", orders: [Self.order("tok", "GPA.1..2", start: 300, expiry: 400), Self.order("tok", "GPA.1..3", start: 400, expiry: 500)]),
            now: 470)
        // A read refunding in full (a cancelled one-time purchase) after a partial void.
        #expect(try Self.void(store, "tok", "GPA.1", at: 50, prorated: true) == ["ana"])
        var cancelled = Self.order("tok", "GPA.1", start: 0, expiry: 100)
        cancelled.refunded = Self.at(60)
        try Self.store(store, Self.observation("tok", orders: [cancelled]), now: 480)
        let transactions = try store.history(forUser: "ana").transactions
        #expect(transactions.map(\.transactionId) == ["GPA.1", "GPA.1..0", "GPA.1..1", "GPA.1..2", "GPA.1..3"].map { "googlePlay:" + $0 })
        #expect(transactions.map(\.cancellation) == [Self.at(50), Self.at(150), Self.at(250), Self.at(350), Self.at(450)])
        #expect(transactions.map(\.revocationType) == Array(repeating: .refundFull, count: 5))
    }

    /// The void of a token never read is kept 30 days from when it was recorded (the Voided
    /// Purchases API's window), then forgotten; the void of a token read is kept, and one recorded
    /// within the window applies when the token is read.
    @Test(arguments: StoreBackend.tested) func voidsOfTokensNeverRead_areForgottenAfterThirtyDays(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        let day = Instant.millisecondsPerDay
        try Self.store(store, Self.observation("read", orders: [Self.order("read", "GPA.1", start: 0, expiry: 100)]), now: 10)
        #expect(try Self.void(store, "read", "GPA.1..0", at: 50, prorated: false, now: 0).isEmpty)
        #expect(try Self.void(store, "unknown-1", "GPA.2", at: 50, prorated: false, now: 0).isEmpty)
        #expect(try Self.void(store, "unknown-2", "GPA.3", at: 50, prorated: false, now: 20 * day).isEmpty)
        #expect(try Self.void(store, "unknown-3", "GPA.4", at: 50, prorated: false, now: 30 * day).isEmpty)
        #expect(try fixture.scalar("SELECT count(*) FROM google_play_voids") == .integer(4))
        #expect(try Self.void(store, "unknown-4", "GPA.5", at: 50, prorated: false, now: 30 * day + 1).isEmpty)
        #expect(try fixture.scalar("SELECT count(*) FROM google_play_voids WHERE purchase_token = 'unknown-1'") == .integer(0))
        #expect(try fixture.scalar("SELECT count(*) FROM google_play_voids") == .integer(4))
        // Recorded within the window: applies when the token is read.
        try Self.store(store, Self.observation("unknown-2", orders: [Self.order("unknown-2", "GPA.3", start: 0, expiry: 100)]), now: 40 * day)
        #expect(try store.googlePlayOrders(token: "unknown-2").map(\.refunded) == [Self.at(50)])
    }

    @Test(arguments: StoreBackend.tested) func messageIds_newOnce_byExactBytes_andForgottenAfterSevenDays(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        let record = { (id: String, now: Int64) throws -> Bool in
            try store.inTransaction { () throws(StorageError) in try store.recordGooglePlayMessage(id, now: Self.at(now)) }
        }
        let day = Instant.millisecondsPerDay
        #expect(try record("m-\u{E9}", 0))
        #expect(try !record("m-\u{E9}", 1))
        #expect(try record("m-e\u{301}", 1))
        #expect(try !record("m-\u{E9}", 7 * day))
        #expect(try fixture.scalar("SELECT count(*) FROM google_play_messages") == .integer(2))
        #expect(try record("m-\u{E9}", 7 * day + 2))
        #expect(try fixture.scalar("SELECT count(*) FROM google_play_messages") == .integer(1))
    }

    @Test(arguments: StoreBackend.tested) func acknowledgement_dueAtOnce_retriedWithBackoff_andCountedAfterADay(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        let acknowledge = { (token: String, outcome: GooglePlayAcknowledgement, now: Int64) throws in
            try store.inTransaction { () throws(StorageError) in try store.recordGooglePlayAcknowledgement(token: token, outcome: outcome, now: Self.at(now)) }
        }
        let day = Instant.millisecondsPerDay
        try Self.store(store, Self.observation("new", acknowledged: false, orders: [Self.order("new", "GPA.1", start: 0, expiry: 30 * day)]), now: 1000)
        try Self.store(store, Self.observation("done", acknowledged: true, orders: [Self.order("done", "GPA.2", start: 0, expiry: 30 * day)]), now: 1000)
        try Self.store(store, Self.observation("pending", state: .pending, acknowledged: false, orders: []), now: 1000)
        #expect(try store.googlePlayUnacknowledged(dueBy: Self.at(999), limit: 10).isEmpty)
        #expect(try store.googlePlayUnacknowledged(dueBy: Self.at(1000), limit: 10).map(\.purchaseToken) == ["new"])
        try acknowledge("new", .failed(reason: "HTTP 500"), 2000)
        try acknowledge("new", .failed(reason: "HTTP 503"), 62_000)
        var stored = try #require(try store.googlePlayPurchase(token: "new"))
        #expect(stored.acknowledgementAttempts == 2)
        #expect(stored.nextAcknowledgement == Self.at(182_000))
        #expect(stored.acknowledgementError == "HTTP 503")
        // A new read does not move an owed acknowledgement's next attempt.
        try Self.store(store, Self.observation("new", acknowledged: false, orders: []), now: 100_000)
        #expect(try store.googlePlayUnacknowledged(dueBy: Self.at(181_999), limit: 10).isEmpty)
        #expect(try store.googlePlayUnacknowledgedCount(olderThan: Self.at(1000)) == 0)
        #expect(try store.googlePlayUnacknowledgedCount(olderThan: Self.at(1001)) == 1)
        try acknowledge("new", .acknowledged, 200_000)
        stored = try #require(try store.googlePlayPurchase(token: "new"))
        #expect(stored.acknowledged && stored.acknowledgementAttempts == 3 && stored.nextAcknowledgement == nil && stored.acknowledgementError == nil)
        #expect(try store.googlePlayUnacknowledgedCount(olderThan: Self.at(day)) == 0)
        // A read saying it is unacknowledged does not undo Masthead's acknowledgement.
        try Self.store(store, Self.observation("new", acknowledged: false, orders: []), now: 300_000)
        #expect(try store.googlePlayPurchase(token: "new")?.acknowledged == true)
        #expect(try store.googlePlayUnacknowledged(dueBy: Self.at(10 * day), limit: 10).isEmpty)
    }

    @Test(arguments: StoreBackend.tested) func databaseBeforeGooglePlay_isMigrated_andKeepsItsUsers(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        try fixture.migrate(sqlite: 16, postgreSQL: 12)
        try fixture.execute("INSERT INTO users (user_id, created_ms) VALUES ('ana', 1)")
        let store = try fixture.open()
        try Self.store(store, Self.observation("tok", orders: [Self.order("tok", "GPA.1", start: 0, expiry: 100)]), now: 10)
        #expect(try Self.link(store, "tok", "ana") == .linked)
        #expect(try Self.ids(store, "ana") == [["googlePlay:GPA.1", "googlePlay:GPA.1"]])
        #expect(try store.userCount() == 1)
    }

    @Test(arguments: StoreBackend.tested) func lookup_findsTheUserOfAPlayTokenOrOrderId_byExactBytes(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        try Self.store(store, Self.observation("tok-\u{E9}", orders: [Self.order("tok-\u{E9}", "GPA.1", start: 0, expiry: 100)]), now: 10)
        try Self.store(store, Self.observation("unlinked", orders: [Self.order("unlinked", "GPA.2", start: 0, expiry: 100)]), now: 10)
        #expect(try Self.link(store, "tok-\u{E9}", "ana") == .linked)
        #expect(try store.lookup("tok-\u{E9}") == [LookupMatch(userId: "ana", kind: .googlePlayPurchaseToken)])
        #expect(try store.lookup("GPA.1") == [LookupMatch(userId: "ana", kind: .googlePlayOrderId)])
        #expect(try store.lookup("tok-e\u{301}").isEmpty)
        #expect(try store.lookup("unlinked").isEmpty)
        #expect(try store.lookup("GPA.2").isEmpty)
    }

    @Test func acknowledgementRetryDelay_doublesFromAMinute_toAnHour() {
        #expect((1...8).map(GooglePlayAcknowledgement.retryDelayMilliseconds(afterAttempts:)) == [
            60_000, 120_000, 240_000, 480_000, 960_000, 1_920_000, 3_600_000, 3_600_000,
        ])
    }
}
