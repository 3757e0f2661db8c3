import MastheadJSON
import MastheadStorage
import MastheadTestSupport
import Testing

/// The offer and billing terms of signed data posted to the service are stored and shown in its
/// entitlement answers, before and after a restart.
struct TermsServiceTests {
    static let token = "3f2504e0-4f89-41d3-9a0c-0305e82c3301"

    /// A win-back offer redeemed after a lapse under a commitment, posted as `OFFER_REDEEMED`
    /// with renewal info offering another win-back: the answers list the terms of both.
    @Test(arguments: StoreBackend.tested) func winBackOfferRedeemed_termsShownInEntitlements_beforeAndAfterARestart(backend: StoreBackend) throws {
        let harness = try ServiceHarness(backend: backend) { SignedFixtures.configure(&$0) }
        #expect(harness.call("PUT", "/v1/users/wes/app-account-tokens/\(Self.token)").status == 200)
        let first = try SignedFixtures.transaction("wb1", original: "wb1", from: "2020-02-10T00:00:00Z", to: "2020-03-10T00:00:00Z", signed: "2020-02-10T00:00:00Z", token: Self.token)
        let winBack = try SignedFixtures.transaction(
            "wb2", original: "wb1", from: "2020-06-17T00:00:00Z", to: "2020-07-17T00:00:00Z", signed: "2020-06-17T00:00:00Z", token: Self.token,
            extra: [
                #""offerType": 4"#, #""offerIdentifier": "come-back""#, #""offerPeriod": "P1M""#, #""appTransactionId": "704183259315648010""#,
                #""billingPlanType": "MONTHLY""#, #""commitmentInfo": {"billingPeriodNumber": 1, "totalBillingPeriods": 12, "commitmentPrice": 59880}"#,
            ])
        let renewal = try SignedFixtures.renewal(
            original: "wb1", autoRenew: true, signed: "2020-06-17T00:00:00Z",
            extra: [#""appAccountToken": "\#(Self.token)""#, #""eligibleWinBackOfferIds": ["come-back-again"]"#, #""renewalBillingPlanType": "MONTHLY""#])
        for (type, transaction, renewal, signed) in [("SUBSCRIBED", first, nil, "2020-02-10T00:00:00Z"), ("OFFER_REDEEMED", winBack, renewal, "2020-06-17T00:00:00Z")] {
            let answer = harness.call(
                "POST", "/v1/notifications/app-store", token: nil, json: try SignedFixtures.notification(type, transaction: transaction, renewal: renewal, signed: signed))
            #expect(answer.body == #"{"stored":true,"applied":true}"#, "\(type)")
        }
        Self.expectTerms(harness, "as stored")
        harness.close(remove: false)
        let restarted = try ServiceHarness(backend: backend, path: harness.path) { SignedFixtures.configure(&$0) }
        defer { restarted.close() }
        Self.expectTerms(restarted, "read back after a restart")
    }

    static func expectTerms(_ harness: ServiceHarness, _ step: String) {
        let entitlements = harness.call("GET", "/v1/users/wes/entitlements?at=2020-07-02T00:00:00Z&publication=the-monthly").json
        let publication = entitlements?["publications"]?.elements.first { _ in true }
        let purchases = publication?["purchaseTerms"]?.elements.map { $0 } ?? []
        #expect(purchases.count == 1, "\(step)")
        let terms = purchases.first
        #expect(terms?["transactionId"]?.string == "wb2", "\(step)")
        #expect(terms?["offerType"]?.int64 == 4, "\(step)")
        #expect(terms?["offerIdentifier"]?.string == "come-back", "\(step)")
        #expect(terms?["offerPeriod"]?.string == "P1M", "\(step)")
        #expect(terms?["appTransactionId"]?.string == "704183259315648010", "\(step)")
        #expect(terms?["billingPlanType"]?.string == "MONTHLY", "\(step)")
        #expect(terms?["commitmentInfo"]?["totalBillingPeriods"]?.int64 == 12, "\(step)")
        #expect(terms?["commitmentInfo"]?["commitmentExpiresDate"]?.isNull == true, "\(step)")
        #expect(terms?["commitmentInfo"]?["commitmentPrice"]?.int64 == 59_880, "\(step)")
        let renewal = publication?["status"]?["renewalTerms"]
        #expect(renewal?["appAccountToken"]?.string == Self.token, "\(step)")
        #expect(renewal?["eligibleWinBackOfferIds"]?.elements.compactMap(\.string) == ["come-back-again"], "\(step)")
        #expect(renewal?["renewalBillingPlanType"]?.string == "MONTHLY", "\(step)")
        #expect(renewal?["offerType"]?.isNull == true, "\(step)")
        // The win-back resubscription unlocked June's issue, published during the lapse (R8, R11).
        #expect(ServiceRouterTests.readable(harness, "wes", "2020-06", at: "2020-07-02T00:00:00Z") == true, "\(step)")
        #expect(ServiceRouterTests.readable(harness, "wes", "2020-05", at: "2020-07-02T00:00:00Z") == false, "\(step)")
    }
}
