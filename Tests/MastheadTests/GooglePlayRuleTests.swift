import Masthead
import Testing

/// R18: Google Play orders, as the store keeps them, are transactions of the engine: the same
/// timeline gives the same answers as the App Store's.
struct GooglePlayRuleTests {
    static let firstOrder = "GPA.3345-1234-5678-90123"

    /// An order of token `token` `[from, to)` as Masthead observed it at its start.
    static func order(
        _ token: String, _ orderId: String, _ from: String, _ to: String?, product: String = "monthly", refunded: String? = nil,
        prorated: Bool = false, environment: Environment = .production
    ) -> GooglePlayOrder {
        GooglePlayOrder(
            purchaseToken: token, orderId: orderId, productId: product, start: Mock.instant(from), expiry: to.map(Mock.instant),
            environment: environment, refunded: refunded.map(Mock.instant), refundIsProrated: prorated, observed: Mock.instant(from))
    }

    /// Table 6-1 on Google Play: token A bought Feb 20 and renewed Mar 20 (its renewal order
    /// `..0` starts where the first order expired), cancelled so it lapses Apr 20; token B,
    /// linked to A, resubscribes Jun 17. One chain: its id is A's first order.
    static let table61 = [
        order("token-a", firstOrder, "2020-02-20T12:00", "2020-03-20T12:00"),
        order("token-a", firstOrder + "..0", "2020-03-20T12:00", "2020-04-20T12:00"),
        order("token-b", "GPA.3399-9876-5432-10987", "2020-06-17T12:00", "2020-07-17T12:00"),
    ].map { $0.transaction(chainId: firstOrder) }

    @Test(arguments: SeedTimelineTests.table61Rows)
    func R18_table61_asPlayOrders_answersEveryRowLikeTheAppStore(row: (at: String, state: SubscriptionState, readable: [String])) {
        let play = Mock.evaluate(Self.table61, at: row.at)
        let appStore = Mock.evaluate(SeedTimelineTests.table61, at: row.at)
        #expect(play.status.state == row.state)
        #expect(play.readableIssueIds == row.readable)
        #expect(play.readableIssueIds == appStore.readableIssueIds)
        #expect(play.periods.map(\.start) == appStore.periods.map(\.start))
        #expect(play.lapses.map(\.start) == appStore.lapses.map(\.start))
    }

    @Test func R18_transaction_idsCarryThePrefix_andTheChain() {
        let transaction = Self.order("token-b", "GPA.1", "2020-06-17T12:00", "2020-07-17T12:00").transaction(chainId: Self.firstOrder)
        #expect(transaction.transactionId == "googlePlay:GPA.1")
        #expect(transaction.originalTransactionId == "googlePlay:" + Self.firstOrder)
        #expect(transaction.purchase == Mock.instant("2020-06-17T12:00"))
        #expect(transaction.expires == Mock.instant("2020-07-17T12:00"))
        #expect(transaction.cancellation == nil)
        #expect(transaction.revocationType == nil)
    }

    /// An App Store transaction whose id is a Play order id is not that order: the prefix keeps
    /// them two transactions, and the refund of one does not touch the other.
    @Test func R18_anAppStoreIdEqualToAnOrderId_isAnotherTransaction() {
        let apple = Mock.renewal(Self.firstOrder, "monthly", "2020-02-20T12:00", "2020-03-20T12:00", cancelled: "2020-02-21T00:00")
        let play = Self.order("token-a", Self.firstOrder, "2020-02-20T12:00", "2020-03-20T12:00").transaction(chainId: Self.firstOrder)
        let history = PurchaseHistory(transactions: [apple, play])
        #expect(history.transactions.count == 2)
        let result = Mock.engine().evaluate(history, publication: Mock.monthly(), at: Mock.instant("2020-03-01T12:00"))
        #expect(result.readableIssueIds == ["2020-02", "2020-03"])
    }

    /// A reader with an App Store subscription (Feb 20 – Apr 20) and a Play one (from Jun 17)
    /// gets their union: Table 6-1 split between the stores answers every row as Table 6-1.
    @Test(arguments: SeedTimelineTests.table61Rows)
    func R18_bothStores_giveTheUnion(row: (at: String, state: SubscriptionState, readable: [String])) {
        let transactions = Array(SeedTimelineTests.table61.prefix(2)) + [Self.table61[2]]
        let result = Mock.evaluate(transactions, at: row.at)
        #expect(result.status.state == row.state)
        #expect(result.readableIssueIds == row.readable)
    }

    /// A full refund of the renewal order (R5.1): it never paid for anything, so April's issue,
    /// published during it, is gone once refunded, and a lapse opens at its start.
    @Test func R18_R5_1_fullRefund_ofAnOrder_removesIt() {
        let orders = [
            Self.order("token-a", Self.firstOrder, "2020-02-20T12:00", "2020-03-20T12:00"),
            Self.order("token-a", Self.firstOrder + "..0", "2020-03-20T12:00", "2020-04-20T12:00", refunded: "2020-04-10T00:00"),
        ].map { $0.transaction(chainId: Self.firstOrder) }
        #expect(Mock.evaluate(orders, at: "2020-04-09T00:00").readableIssueIds == ["2020-02", "2020-03", "2020-04"])
        let after = Mock.evaluate(orders, at: "2020-04-10T00:00")
        #expect(after.readableIssueIds == ["2020-02", "2020-03"])
        #expect(after.status.state == .expired)
        #expect(after.lapses.first?.start == Mock.instant("2020-03-20T12:00"))
    }

    /// A partial refund (R5.3) ends the order at the refund: April's issue, published before it,
    /// stays; an issue published after it is not granted; the lapse starts at the refund.
    @Test func R18_R5_3_partialRefund_endsTheOrderThere() {
        let orders = [
            Self.order("token-a", Self.firstOrder, "2020-02-20T12:00", "2020-03-20T12:00"),
            Self.order("token-a", Self.firstOrder + "..0", "2020-03-20T12:00", "2020-05-20T12:00", refunded: "2020-04-10T00:00", prorated: true),
        ].map { $0.transaction(chainId: Self.firstOrder) }
        let result = Mock.evaluate(orders, at: "2020-06-01T12:00")
        #expect(result.readableIssueIds == ["2020-02", "2020-03", "2020-04"])
        #expect(result.lapses.first?.start == Mock.instant("2020-04-10T00:00"))
        #expect(result.status.state == .expired)
    }

    /// An order refunded in part and then in full (or in full, then in part) is refunded in full
    /// (R5.1) from the earliest of its refunds, whatever order they arrive in: every permutation
    /// of its refunds gives the same order; as of the earliest refund it pays for nothing, just
    /// before it for everything (R10).
    @Test func R18_R5_1_partialAndFullRefundsOfAnOrder_refundItInFull_fromTheEarliest_inAnyOrder() {
        let order = Self.order("token-a", Self.firstOrder + "..0", "2020-03-20T12:00", "2020-05-20T12:00")
        let refunds: [(at: Instant, prorated: Bool)] = [
            (Mock.instant("2020-04-10T00:00"), true), (Mock.instant("2020-04-25T00:00"), false), (Mock.instant("2020-04-12T00:00"), true),
        ]
        let orders = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]].map { permutation in
            permutation.reduce(order) { order, index in order.refunding(at: refunds[index].at, prorated: refunds[index].prorated) }
        }
        for refunded in orders {
            #expect(refunded.refunded == Mock.instant("2020-04-10T00:00"))
            #expect(refunded.refundIsProrated == false)
        }
        // Partial refunds only: the order ends at the earliest (R5.3).
        let partial = order.refunding(at: Mock.instant("2020-04-12T00:00"), prorated: true).refunding(at: Mock.instant("2020-04-10T00:00"), prorated: true)
        #expect(partial.refunded == Mock.instant("2020-04-10T00:00"))
        #expect(partial.refundIsProrated)
        let transactions = [Self.order("token-a", Self.firstOrder, "2020-02-20T12:00", "2020-03-20T12:00"), orders[0]].map {
            $0.transaction(chainId: Self.firstOrder)
        }
        #expect(Mock.evaluate(transactions, at: "2020-04-09T23:59").readableIssueIds == ["2020-02", "2020-03", "2020-04"])
        #expect(Mock.evaluate(transactions, at: "2020-04-10T00:00").readableIssueIds == ["2020-02", "2020-03"])
        #expect(Mock.evaluate(transactions, at: "2020-06-01T12:00").readableIssueIds == ["2020-02", "2020-03"])
    }

    /// An account hold is a lapse (R8): the renewal after it starts when the payment recovered,
    /// so the issue published during the hold is not readable and the next period unlocks the
    /// latest issue again.
    @Test func R18_R8_accountHold_isALapse() {
        let orders = [
            Self.order("token-a", Self.firstOrder, "2020-02-20T12:00", "2020-04-20T12:00"),
            Self.order("token-a", Self.firstOrder + "..0", "2020-05-05T12:00", "2020-06-05T12:00"),
        ].map { $0.transaction(chainId: Self.firstOrder) }
        let result = Mock.evaluate(orders, at: "2020-05-02T00:00")
        #expect(result.status.state != .active)
        #expect(result.readableIssueIds == ["2020-02", "2020-03", "2020-04"])
        let recovered = Mock.evaluate(orders, at: "2020-05-05T12:00")
        #expect(recovered.status.state == .active)
        #expect(recovered.readableIssueIds == ["2020-02", "2020-03", "2020-04", "2020-05"])
        #expect(recovered.lapses.map(\.start) == [Mock.instant("2020-04-20T12:00")])
    }

    /// R1, R10 at an order's edges: as of its start it counts; as of its expiry it has ended,
    /// one millisecond earlier it has not.
    @Test func R18_R1_boundaries_atAnOrdersStartAndExpiry() {
        let orders = [Self.order("token-a", Self.firstOrder, "2020-02-20T12:00", "2020-03-20T12:00").transaction(chainId: Self.firstOrder)]
        #expect(Mock.evaluate(orders, at: "2020-02-20T11:59:59.999").status.state == .none)
        #expect(Mock.evaluate(orders, at: "2020-02-20T12:00").status.state == .active)
        #expect(Mock.evaluate(orders, at: "2020-03-20T11:59:59.999").status.state == .active)
        #expect(Mock.evaluate(orders, at: "2020-03-20T12:00").status.state == .expired)
    }

    /// A test purchase is sandbox data (R14): it grants in sandbox answers only.
    @Test func R18_R14_testPurchase_grantsOnlyInSandbox() {
        let orders = [
            Self.order("token-a", Self.firstOrder, "2020-02-20T12:00", "2020-03-20T12:00", environment: .sandbox).transaction(chainId: Self.firstOrder)
        ]
        #expect(Mock.evaluate(orders, at: "2020-03-01T00:00").readableIssueIds == [])
        #expect(Mock.evaluate(orders, at: "2020-03-01T00:00", environment: .sandbox).readableIssueIds == ["2020-02", "2020-03"])
    }

    /// A one-time product's order has no expiry: the catalog product decides, here the May issue
    /// bought on its own (R13).
    @Test func R18_R13_oneTimeOrder_isASingleIssuePurchase() {
        let orders = [Self.order("token-c", "GPA.3312-3456-7890-12345", "2020-03-01T00:00", nil, product: "issue-05").transaction(chainId: "GPA.3312-3456-7890-12345")]
        #expect(Mock.evaluate(orders, at: "2020-04-30T00:00").readableIssueIds == [])
        #expect(Mock.evaluate(orders, at: "2020-05-01T00:00").readableIssueIds == ["2020-05"])
    }
}

extension GooglePlayRuleTests {
    /// A token replaced through `linkedPurchaseToken` (an upgrade or downgrade) ends where the
    /// new token's first order starts, as an App Store upgrade does (R5.2): a streaming plan
    /// replaced by an archive one on Mar 5 streams no more after it, though its order ran to Mar 20.
    @Test func R18_R5_2_replacedToken_endsWhereTheNewTokenStarts() {
        let old = Self.order("token-a", Self.firstOrder, "2020-02-20T12:00", "2020-03-20T12:00", product: "reader")
        let new = Self.order("token-b", "GPA.3399-9876-5432-10987", "2020-03-05T12:00", "2020-04-05T12:00")
        let cut = [old.transaction(chainId: Self.firstOrder, replacedAt: new.start), new.transaction(chainId: Self.firstOrder)]
        let asOf = Mock.evaluate(cut, at: "2020-03-10T00:00")
        #expect(asOf.readableIssueIds == ["2020-03"])
        #expect(cut[0].isUpgraded)
        let uncut = [old.transaction(chainId: Self.firstOrder), new.transaction(chainId: Self.firstOrder)]
        #expect(Mock.evaluate(uncut, at: "2020-03-10T00:00").readableIssueIds.contains("2020-01"))
        // A replacement at or after the order's expiry changes nothing; a refund is not an upgrade.
        #expect(!old.transaction(chainId: Self.firstOrder, replacedAt: Mock.instant("2020-03-20T12:00")).isUpgraded)
        var refunded = old
        refunded.refunded = Mock.instant("2020-03-01T00:00")
        #expect(!refunded.transaction(chainId: Self.firstOrder, replacedAt: new.start).isUpgraded)
    }
}

extension GooglePlayRuleTests {
    /// Ids are their exact bytes: two spellings of an order id or a token are two orders and two
    /// observations, though Swift's `String ==` takes them for one.
    @Test func R18_ordersAndObservations_compareIdsByExactBytes() {
        let precomposed = Self.order("caf\u{E9}", "GPA.caf\u{E9}", "2020-02-20T12:00", "2020-03-20T12:00")
        var decomposed = precomposed
        decomposed.orderId = "GPA.cafe\u{301}"
        #expect(precomposed.orderId == decomposed.orderId)
        #expect(precomposed != decomposed)
        #expect(Set([precomposed, decomposed]).count == 2)
        var otherToken = precomposed
        otherToken.purchaseToken = "cafe\u{301}"
        #expect(precomposed != otherToken)
        let observation = GooglePlayObservation(purchaseToken: "caf\u{E9}", state: .active, acknowledged: true, playProductId: "p", orders: [precomposed])
        var other = observation
        other.linkedPurchaseToken = nil
        other.obfuscatedExternalAccountId = nil
        #expect(observation == other)
        other.purchaseToken = "cafe\u{301}"
        #expect(observation != other)
        #expect(Set([observation, other]).count == 2)
    }
}

extension GooglePlayRuleTests {
    /// Tokens linked through `linkedPurchaseToken` are one chain, named by the first token's first
    /// order, in whatever order they are given; each replaced token ends where the token replacing
    /// it starts (R5.2); a cycle of links ends.
    @Test func R18_chain_namedByTheFirstTokensFirstOrder_replacedTokensEndWhereTheNextStarts() {
        let a = GooglePlayTokenOrders(
            purchaseToken: "token-a",
            orders: [
                Self.order("token-a", Self.firstOrder + "..0", "2020-03-20T12:00", "2020-04-20T12:00"),
                Self.order("token-a", Self.firstOrder, "2020-02-20T12:00", "2020-03-20T12:00"),
            ])
        let b = GooglePlayTokenOrders(
            purchaseToken: "token-b", linkedPurchaseToken: "token-a", orders: [Self.order("token-b", "GPA.2", "2020-04-01T00:00", "2020-05-01T00:00")])
        let c = GooglePlayTokenOrders(
            purchaseToken: "token-c", linkedPurchaseToken: "token-b", orders: [Self.order("token-c", "GPA.3", "2020-04-15T00:00", "2020-05-15T00:00")])
        for tokens in [[a, b, c], [c, b, a], [b, c, a]] {
            let transactions = GooglePlayTokenOrders.transactions(tokens)
            #expect(Set(transactions.map(\.originalTransactionId)) == ["googlePlay:" + Self.firstOrder])
            let byId = Dictionary(uniqueKeysWithValues: transactions.map { ($0.transactionId, $0) })
            #expect(byId["googlePlay:" + Self.firstOrder]?.isUpgraded == false)
            #expect(byId["googlePlay:" + Self.firstOrder + "..0"]?.cancellation == Mock.instant("2020-04-01T00:00"))
            #expect(byId["googlePlay:GPA.2"]?.cancellation == Mock.instant("2020-04-15T00:00"))
            #expect(byId["googlePlay:GPA.3"]?.cancellation == nil)
        }
        // A token whose linked token Masthead does not hold starts its own chain.
        let alone = GooglePlayTokenOrders.transactions([b])
        #expect(alone.map(\.originalTransactionId) == ["googlePlay:GPA.2"])
        // Links that loop (never sent by Google) still end.
        let x = GooglePlayTokenOrders(purchaseToken: "x", linkedPurchaseToken: "y", orders: [Self.order("x", "GPA.x", "2020-02-01T00:00", "2020-03-01T00:00")])
        let y = GooglePlayTokenOrders(purchaseToken: "y", linkedPurchaseToken: "x", orders: [Self.order("y", "GPA.y", "2020-03-01T00:00", "2020-04-01T00:00")])
        #expect(GooglePlayTokenOrders.transactions([x, y]).count == 2)
    }
}

extension GooglePlayRuleTests {
    /// R10: an order Masthead read only in May (a notification lost, the token read late) still
    /// counts from its start when asked about March, as a receipt posted late does; its refund
    /// counts from the voided time only.
    @Test func R18_R10_orderObservedLate_countsFromItsStart() {
        var late = Self.order("token-a", Self.firstOrder, "2020-02-20T12:00", "2020-04-20T12:00", refunded: "2020-05-10T00:00", prorated: true)
        late.observed = Mock.instant("2020-05-01T00:00")
        let transactions = [late.transaction(chainId: Self.firstOrder)]
        #expect(Mock.evaluate(transactions, at: "2020-03-01T12:00").readableIssueIds == ["2020-02", "2020-03"])
        #expect(Mock.evaluate(transactions, at: "2020-03-01T12:00").status.state == .active)
        #expect(Mock.evaluate(transactions, at: "2020-06-01T00:00").readableIssueIds == ["2020-02", "2020-03", "2020-04"])
    }
}
