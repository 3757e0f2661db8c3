import Masthead
import MastheadFormats
import MastheadTestSupport
import Testing

/// R18 through Google's answers: reads of purchase tokens, mapped onto the shipped catalog,
/// kept as the store keeps them, decided by the engine.
struct GooglePlayObservationTests {
    static let catalog = try! CatalogDecoder().decode(Fixtures.example("catalog.json"))

    /// The orders of each token as the store keeps them: an order keeps its first start and
    /// `observed`, a later read gives its expiry; a token names the token it replaced.
    struct Store {
        var orders: [String: [GooglePlayOrder]] = [:]
        var states: [String: GooglePlaySubscriptionState] = [:]
        var linked: [String: String] = [:]

        /// Reads `json` as token `token`'s subscription at `at` and keeps what it says.
        mutating func read(_ token: String, at: String, _ json: String) throws {
            let purchase = try SubscriptionPurchaseV2.decode(Array(json.utf8))
            let observation = GooglePlayObservation(
                subscription: purchase, purchaseToken: token, catalog: GooglePlayObservationTests.catalog, readAt: DateText.rfc3339(at)!,
                previousOrders: orders[token] ?? [], previousState: states[token])
            keep(observation)
        }

        mutating func keep(_ observation: GooglePlayObservation) {
            let token = observation.purchaseToken
            var kept = orders[token] ?? []
            for order in observation.orders {
                if let index = kept.firstIndex(where: { $0.orderId == order.orderId }) { kept[index].expiry = order.expiry } else { kept.append(order) }
            }
            orders[token] = kept
            states[token] = observation.state
            linked[token] = observation.linkedPurchaseToken
        }

        var history: PurchaseHistory {
            PurchaseHistory(
                transactions: GooglePlayTokenOrders.transactions(
                    orders.map { GooglePlayTokenOrders(purchaseToken: $0, linkedPurchaseToken: linked[$0], orders: $1) }))
        }

        func evaluate(at: String, environment: Environment = .production) -> PublicationEntitlement {
            EntitlementEngine(catalog: GooglePlayObservationTests.catalog).evaluate(
                history, publication: GooglePlayObservationTests.catalog.publication("the-monthly")!, at: DateText.rfc3339(at)!,
                environment: environment)
        }
    }

    /// A `SubscriptionPurchaseV2` answer with one line item of base plan `monthly`.
    static func subscription(
        _ state: String, start: String = "2020-02-20T12:00:00.000000Z", expiry: String, order: String, linked: String? = nil,
        basePlan: String = "monthly", test: Bool = false
    ) -> String {
        """
        {"kind": "androidpublisher#subscriptionPurchaseV2", "regionCode": "GB", "startTime": "\(start)",
         "subscriptionState": "SUBSCRIPTION_STATE_\(state)", "latestOrderId": "\(order)",
         \(linked.map { "\"linkedPurchaseToken\": \"\($0)\"," } ?? "") \(test ? "\"testPurchase\": {}," : "")
         "acknowledgementState": "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED",
         "lineItems": [{"productId": "the_monthly", "expiryTime": "\(expiry)", "offerDetails": {"basePlanId": "\(basePlan)"},
                        "autoRenewingPlan": {"autoRenewEnabled": \(state == "ACTIVE")}, "latestSuccessfulOrderId": "\(order)"}]}
        """
    }

    static let first = "GPA.3345-1234-5678-90123"

    /// Table 6-1 as Google tells it: token A bought Feb 20, renewed Mar 20 (order `..0`),
    /// cancelled, expired Apr 20; token B, linked to A, bought Jun 17. Each read a few seconds
    /// after the event, as a notification prompts it.
    static func table61() throws -> Store {
        var store = Store()
        try store.read("token-a", at: "2020-02-20T12:00:05Z", subscription("ACTIVE", expiry: "2020-03-20T12:00:00.000123Z", order: first))
        try store.read("token-a", at: "2020-03-20T12:00:05Z", subscription("ACTIVE", expiry: "2020-04-20T12:00:00Z", order: first + "..0"))
        try store.read("token-a", at: "2020-04-02T08:00:00Z", subscription("CANCELED", expiry: "2020-04-20T12:00:00Z", order: first + "..0"))
        try store.read("token-a", at: "2020-04-20T12:00:05Z", subscription("EXPIRED", expiry: "2020-04-20T12:00:00Z", order: first + "..0"))
        try store.read(
            "token-b", at: "2020-06-17T12:00:05Z",
            subscription("ACTIVE", start: "2020-06-17T12:00:00Z", expiry: "2020-07-17T12:00:00Z", order: "GPA.3399-9876-5432-10987", linked: "token-a"))
        return store
    }

    @Test(arguments: Table61.rows)
    func R18_table61_replayedAsPlayReads_answersEveryRowLikeTheReceipt(row: (at: String, state: String, readable: [String])) throws {
        let play = try Self.table61().evaluate(at: row.at)
        let receipt = try ShippedReceiptTests.evaluate("table-6-1", at: row.at)
        #expect(play.status.state.rawValue == row.state)
        #expect(play.readableIssueIds == row.readable)
        #expect(play.readableIssueIds == receipt.readableIssueIds)
        #expect(play.status.state == receipt.status.state)
    }

    @Test func R18_table61_ordersAndChain_asRead() throws {
        let store = try Self.table61()
        let transactions = store.history.transactions
        #expect(transactions.map(\.transactionId) == ["googlePlay:" + Self.first, "googlePlay:" + Self.first + "..0", "googlePlay:GPA.3399-9876-5432-10987"])
        #expect(Set(transactions.map(\.originalTransactionId)) == ["googlePlay:" + Self.first])
        // The renewal starts where the first order expired; the first at startTime.
        #expect(transactions.map(\.purchase.description) == ["2020-02-20T12:00:00Z", "2020-03-20T12:00:00Z", "2020-06-17T12:00:00Z"])
        #expect(store.orders["token-a"]?.map(\.observed.description) == ["2020-02-20T12:00:05Z", "2020-03-20T12:00:05Z"])
    }

    /// Grace keeps access until the extended expiry Google gives; a hold then is a lapse: the
    /// renewal read after the hold starts when it was read, so April's issue, published during
    /// the hold, is not readable, and May's is unlocked by the new period.
    @Test func R18_graceThenHold_isALapse_untilTheRecoveryIsRead() throws {
        var store = Store()
        try store.read("t", at: "2020-02-20T12:00:05Z", Self.subscription("ACTIVE", expiry: "2020-03-20T12:00:00Z", order: Self.first))
        try store.read("t", at: "2020-03-20T12:00:05Z", Self.subscription("IN_GRACE_PERIOD", expiry: "2020-03-27T12:00:00Z", order: Self.first))
        #expect(store.evaluate(at: "2020-03-25T00:00:00Z").status.state == .active)
        try store.read("t", at: "2020-03-27T12:00:05Z", Self.subscription("ON_HOLD", expiry: "2020-03-27T12:00:00Z", order: Self.first))
        try store.read("t", at: "2020-05-05T12:00:00Z", Self.subscription("ACTIVE", expiry: "2020-06-05T12:00:00Z", order: Self.first + "..0"))
        let result = store.evaluate(at: "2020-05-10T00:00:00Z")
        #expect(result.readableIssueIds == ["2020-02", "2020-03", "2020-05"])
        #expect(result.lapses.map(\.start.description) == ["2020-03-27T12:00:00Z"])
        #expect(result.periods.map(\.start.description) == ["2020-02-20T12:00:00Z", "2020-05-05T12:00:00Z"])
    }

    /// Without a hold read between them, a renewal continues its previous order: no lapse.
    @Test func R18_renewalWithoutHold_continuesThePreviousOrder() throws {
        var store = Store()
        try store.read("t", at: "2020-02-20T12:00:05Z", Self.subscription("ACTIVE", expiry: "2020-03-20T12:00:00Z", order: Self.first))
        try store.read("t", at: "2020-04-02T00:00:00Z", Self.subscription("ACTIVE", expiry: "2020-04-20T12:00:00Z", order: Self.first + "..0"))
        #expect(store.orders["t"]?.map(\.start.description) == ["2020-02-20T12:00:00Z", "2020-03-20T12:00:00Z"])
        #expect(store.evaluate(at: "2020-04-10T00:00:00Z").lapses.isEmpty)
    }

    /// A state that gives no access ends the order no later than the read, whatever expiry it
    /// carries; a pending purchase gives no order at all.
    @Test func R18_noAccessStates_endTheOrderAtTheRead_pendingGivesNothing() throws {
        let expired = GooglePlayObservation(
            subscription: try SubscriptionPurchaseV2.decode(Array(Self.subscription("EXPIRED", expiry: "2020-03-20T12:00:00Z", order: Self.first).utf8)),
            purchaseToken: "t", catalog: Self.catalog, readAt: DateText.rfc3339("2020-03-01T00:00:00Z")!)
        #expect(expired.orders.map(\.expiry?.description) == ["2020-03-01T00:00:00Z"])
        let pending = GooglePlayObservation(
            subscription: try SubscriptionPurchaseV2.decode(GooglePlayDecoderTests.fixture("subscription-purchase-v2-pending.json")),
            purchaseToken: "p", catalog: Self.catalog, readAt: DateText.rfc3339("2024-04-01T00:00:00Z")!)
        #expect(pending.orders.isEmpty)
        #expect(pending.state == .pending)
        #expect(!pending.state.givesAccess)
    }

    /// A test purchase is sandbox data (R14); a base plan the catalog does not map is listed,
    /// not granted (R3).
    @Test func R18_R14_testPurchase_isSandbox_andUnknownBasePlansAreReportedAsUnknownProducts() throws {
        let test = GooglePlayObservation(
            subscription: try SubscriptionPurchaseV2.decode(Array(Self.subscription("ACTIVE", expiry: "2020-03-20T12:00:00Z", order: Self.first, test: true).utf8)),
            purchaseToken: "t", catalog: Self.catalog, readAt: DateText.rfc3339("2020-02-20T12:00:05Z")!)
        #expect(test.orders.map(\.environment) == [.sandbox])
        #expect(test.orders.map(\.productId) == ["com.example.monthly"])
        let unknown = GooglePlayObservation(
            subscription: try SubscriptionPurchaseV2.decode(Array(Self.subscription("ACTIVE", expiry: "2020-03-20T12:00:00Z", order: Self.first, basePlan: "yearly").utf8)),
            purchaseToken: "t", catalog: Self.catalog, readAt: DateText.rfc3339("2020-02-20T12:00:05Z")!)
        #expect(unknown.unknownProductIds == ["the_monthly/yearly"])
        #expect(unknown.orders.map(\.productId) == ["googlePlay:the_monthly/yearly"])
        // Reported as an unknown App Store product is (R3): listed, counted, granting nothing.
        var store = Store()
        store.keep(unknown)
        let answer = EntitlementEngine(catalog: Self.catalog).evaluate(store.history, at: DateText.rfc3339("2020-03-01T00:00:00Z")!)
        #expect(answer.unknownProductIds == ["googlePlay:the_monthly/yearly"])
        #expect(answer.unknownTransactionCount == 1)
        #expect(answer.publications.isEmpty)
    }

    /// The documented `SubscriptionPurchaseV2` shape maps to one order of the catalog product.
    @Test func R18_documentedSubscription_mapsToItsOrder() throws {
        let observation = GooglePlayObservation(
            subscription: try SubscriptionPurchaseV2.decode(GooglePlayDecoderTests.fixture("subscription-purchase-v2.json")),
            purchaseToken: "NEW_TOKEN", catalog: Self.catalog, readAt: DateText.rfc3339("2024-05-02T00:00:00Z")!)
        #expect(observation.linkedPurchaseToken == "OLD_PURCHASE_TOKEN")
        #expect(observation.acknowledged)
        #expect(observation.obfuscatedExternalAccountId == "user-42")
        #expect(observation.playProductId == "the_monthly")
        #expect(
            observation.orders == [
                GooglePlayOrder(
                    purchaseToken: "NEW_TOKEN", orderId: "GPA.3345-1234-5678-90123..0", productId: "com.example.monthly",
                    start: DateText.rfc3339("2024-04-01T12:00:00.123Z")!, expiry: DateText.rfc3339("2024-06-01T12:00:00.123Z")!,
                    observed: DateText.rfc3339("2024-05-02T00:00:00Z")!)
            ])
    }

    /// A one-time product bought is a single-issue purchase of its catalog product (R13); once
    /// cancelled it is refunded in full (R5.1) from the read that says so, or from an earlier
    /// partial refund, which it makes full; pending gives nothing.
    @Test func R18_R13_oneTimeProduct_purchasedCancelledPending() throws {
        let bought = try GooglePlayProductPurchase.decode(GooglePlayDecoderTests.fixture("product-purchase.json"))
        let observation = GooglePlayObservation(
            product: bought, purchaseToken: "o", playProductId: "issue_2020_05", catalog: Self.catalog, readAt: DateText.rfc3339("2020-05-01T12:00:05Z")!)
        #expect(observation.orders.map(\.productId) == ["com.example.issue.2020-05"])
        #expect(observation.orders.map(\.expiry) == [nil])
        var store = Store()
        store.keep(observation)
        #expect(store.evaluate(at: "2020-05-02T00:00:00Z").readableIssueIds == ["2020-05"])
        var cancelled = bought
        cancelled.purchaseState = .oneTimeCanceled
        let refund = GooglePlayObservation(
            product: cancelled, purchaseToken: "o", playProductId: "issue_2020_05", catalog: Self.catalog,
            readAt: DateText.rfc3339("2020-05-03T00:00:00Z")!, previousOrders: observation.orders)
        #expect(refund.orders.map(\.refunded?.description) == ["2020-05-03T00:00:00Z"])
        #expect(refund.orders.map(\.refundIsProrated) == [false])
        #expect(refund.orders.map(\.observed) == observation.orders.map(\.observed))
        // Refunded in part before (a void stored): the cancelled read makes it a full refund from the earlier void.
        let partlyRefunded = observation.orders.map { $0.refunding(at: DateText.rfc3339("2020-05-02T00:00:00Z")!, prorated: true) }
        let fullAfterPartial = GooglePlayObservation(
            product: cancelled, purchaseToken: "o", playProductId: "issue_2020_05", catalog: Self.catalog,
            readAt: DateText.rfc3339("2020-05-03T00:00:00Z")!, previousOrders: partlyRefunded)
        #expect(fullAfterPartial.orders.map(\.refunded?.description) == ["2020-05-02T00:00:00Z"])
        #expect(fullAfterPartial.orders.map(\.refundIsProrated) == [false])
        var pending = bought
        pending.purchaseState = .oneTimePending
        #expect(
            GooglePlayObservation(product: pending, purchaseToken: "o", playProductId: "issue_2020_05", catalog: Self.catalog, readAt: DateText.rfc3339("2020-05-03T00:00:00Z")!)
                .orders.isEmpty)
    }
}

extension GooglePlayObservationTests {
    /// A one-time product the catalog sells as a non-renewing pass is one (R6): it runs its
    /// catalog duration from the purchase, by calendar arithmetic (Jan 31 + P1M = Feb 29, 2020).
    @Test func R18_R6_oneTimePass_runsTheCatalogsDuration() throws {
        let bought = GooglePlayProductPurchase(
            purchaseTime: DateText.rfc3339("2020-01-31T12:00:00Z"), purchaseState: .oneTimePurchased, orderId: "GPA.3312-0000-0000-00001")
        var store = Store()
        store.keep(
            GooglePlayObservation(
                product: bought, purchaseToken: "pass", playProductId: "pass_1m", catalog: Self.catalog, readAt: DateText.rfc3339("2020-01-31T12:00:05Z")!))
        let during = store.evaluate(at: "2020-02-15T00:00:00Z")
        #expect(during.readableIssueIds == ["2020-01", "2020-02"])
        #expect(during.periods.map(\.end.description) == ["2020-02-29T12:00:00Z"])
        #expect(store.evaluate(at: "2020-03-15T00:00:00Z").readableIssueIds == ["2020-01", "2020-02"])
    }
}

extension GooglePlayObservationTests {
    /// A read built by hand without line items (the decoder refuses one) maps to no order and no
    /// Play product, rather than trapping.
    @Test func R18_readWithoutLineItems_mapsToNothing() {
        let read = SubscriptionPurchaseV2(startTime: nil, subscriptionState: .active, lineItems: [])
        let observation = GooglePlayObservation(subscription: read, purchaseToken: "t", catalog: Self.catalog, readAt: Instant(milliseconds: 0))
        #expect(observation.orders.isEmpty)
        #expect(observation.playProductId == "")
    }
}
