import Foundation
import MastheadJSON
import MastheadTestSupport
import Testing

/// `ONE_TIME_CHARGE` (version 2, 2024): a single issue or a non-renewing pass bought in the app
/// arrives as a one-time charge carrying its signed transaction and no renewal info. It is
/// applied as its transaction says (R13, R6): the reader linked by the app account token reads
/// what the product grants, a replay changes nothing, and a later REFUND revokes it (R5.1).
struct OneTimeChargeTests {
    static let token = SignedNotificationTests.token
    static let at = "2020-07-02T00:00:00Z"

    /// A product bought once, when, and what the reader may read as of ``at``.
    struct Purchase: Sendable, CustomTestStringConvertible {
        var product: String
        var type: String
        var bought: String
        var refunded: String
        var readable: [String]
        var testDescription: String { product }
    }

    static let purchases = [
        Purchase(product: "com.example.issue.2020-05", type: "Non-Consumable", bought: "2020-06-10T00:00:00Z", refunded: "2020-06-20T00:00:00Z", readable: ["2020-05"]),
        Purchase(
            product: "com.example.pass.1m", type: "Non-Renewing Subscription", bought: "2020-03-10T00:00:00Z", refunded: "2020-03-20T00:00:00Z",
            readable: ["2020-03", "2020-04"]),
    ]

    static func post(_ harness: ServiceHarness, _ body: String) -> ServiceHarness.Answer {
        harness.call("POST", "/v1/notifications/app-store", token: nil, json: body)
    }

    @Test(arguments: purchases)
    func oneTimeCharge_unlocksWhatTheProductGrants_replayChangesNothing_refundRevokes(purchase: Purchase) throws {
        let harness = try SignedNotificationTests.harness()
        defer { harness.close() }
        #expect(harness.call("PUT", "/v1/users/ola/app-account-tokens/\(Self.token)").status == 200)
        let checks = { SignedNotificationTests.checks("ola") { harness.call("GET", $0).body } }
        #expect(SignedNotificationTests.readable(checks(), at: Self.at) == [])

        let bought = try SignedFixtures.purchase("otc1", product: purchase.product, type: purchase.type, at: purchase.bought, signed: purchase.bought, token: Self.token)
        let charge = try SignedFixtures.notification("ONE_TIME_CHARGE", transaction: bought, signed: purchase.bought)
        let answer = Self.post(harness, charge)
        #expect(answer.status == 200, "\(answer.body)")
        #expect(answer.body == #"{"stored":true,"applied":true}"#)
        let afterCharge = checks()
        #expect(SignedNotificationTests.readable(afterCharge, at: Self.at) == purchase.readable)

        // The same delivery again is a duplicate; the same charge under another notificationUUID is
        // stored, and the transaction it carries changes nothing (R2.8).
        #expect(Self.post(harness, charge).body == #"{"stored":false,"applied":false,"duplicate":true}"#)
        let resent = try SignedFixtures.notification("ONE_TIME_CHARGE", transaction: bought, signed: purchase.bought)
        #expect(Self.post(harness, resent).body == #"{"stored":true,"applied":true}"#)
        SignedNotificationTests.expectSame(checks(), afterCharge, "after the replays")
        #expect(harness.call("GET", "/metrics").body.contains(#"masthead_notifications_total{type="ONE_TIME_CHARGE"} 2"#))

        // Apple refunds the purchase: nothing it gave is readable any more (R5.1).
        let refund = try SignedFixtures.purchase(
            "otc1", product: purchase.product, type: purchase.type, at: purchase.bought, signed: purchase.refunded, revoked: purchase.refunded, token: Self.token)
        #expect(Self.post(harness, try SignedFixtures.notification("REFUND", transaction: refund, signed: purchase.refunded)).status == 200)
        #expect(SignedNotificationTests.readable(checks(), at: Self.at) == [])
        let refunds = harness.call("GET", "/v1/users/ola/entitlements?at=\(Self.at)&publication=the-monthly").json?["publications"]?.elements
            .first(where: { _ in true })?["refunded"]?.elements.map { $0["transactionId"]?.string } ?? []
        #expect(refunds == ["otc1"])
    }

    /// A back issue sold through the Advanced Commerce API: a ONE_TIME_CHARGE whose transaction's
    /// item names the catalog's SKU (`back-issue.2020-05`) unlocks that issue; Apple's refund of
    /// the item revokes it.
    @Test func oneTimeCharge_advancedCommerceItem_unlocksTheIssueItsSKUNames() throws {
        let harness = try SignedNotificationTests.harness()
        defer { harness.close() }
        #expect(harness.call("PUT", "/v1/users/ada/app-account-tokens/\(Self.token)").status == 200)
        let (bought, refunded) = ("2020-06-10T00:00:00Z", "2020-06-20T00:00:00Z")
        func charge(signed: String, itemRevoked: String? = nil) throws -> String {
            let revocation = itemRevoked.map { #", "revocationDate": \#(SignedFixtures.ms($0)), "refunds": [{"refundAmount": 2990, "refundDate": \#(SignedFixtures.ms($0)), "refundReason": "OTHER", "refundType": "FULL"}]"# } ?? ""
            return try SignedFixtures.purchase(
                "ac7", product: "com.example.advanced", type: "Non-Consumable", at: bought, signed: signed, token: Self.token,
                advancedCommerceInfo: #"{"items": [{"SKU": "back-issue.2020-05", "displayName": "May 2020", "description": "Back issue", "price": 2990\#(revocation)}], "requestReferenceId": "9b1c4a52-6f0e-4e8d-a7b3-2c5d8e9f0a1b", "taxCode": "C003-00-2", "taxExclusivePrice": 2990, "estimatedTax": 0}"#)
        }
        let answer = Self.post(harness, try SignedFixtures.notification("ONE_TIME_CHARGE", transaction: try charge(signed: bought), signed: bought))
        #expect(answer.body == #"{"stored":true,"applied":true}"#)
        #expect(SignedNotificationTests.readable(SignedNotificationTests.checks("ada") { harness.call("GET", $0).body }, at: Self.at) == ["2020-05"])
        let entitlements = harness.call("GET", "/v1/users/ada/entitlements?at=\(Self.at)").json
        #expect(entitlements?["unknownProducts"]?.count == 0)

        let refund = try SignedFixtures.notification("REFUND", transaction: try charge(signed: refunded, itemRevoked: refunded), signed: refunded)
        #expect(Self.post(harness, refund).status == 200)
        #expect(SignedNotificationTests.readable(SignedNotificationTests.checks("ada") { harness.call("GET", $0).body }, at: Self.at) == [])
    }
}
