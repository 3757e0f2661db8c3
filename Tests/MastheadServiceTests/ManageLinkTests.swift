import MastheadJSON
import Testing

/// The entitlements JSON sends the reader to the App Store to manage a subscription, or to fix
/// their payment method while Apple retries a renewal (the status's `manageURL`, `billingIssueURL`).
struct ManageLinkTests {
    static let manage = "https://apps.apple.com/account/subscriptions"
    static let billing = "https://apps.apple.com/account/billing"

    /// The status of the-monthly for the shipped receipt `receipt`, as of `at`.
    static func status(_ receipt: String, at: String) throws -> JSONValue {
        let harness = try ExplanationRouteTests.harness(receipt)
        defer { harness.close() }
        let answer = try #require(harness.call("GET", "/v1/users/alice/entitlements?publication=the-monthly&at=\(at)").json)
        return try #require(answer["publications"]?.elements.first { _ in true }?["status"])
    }

    /// grace.json: the renewal failed on 2020-06-01, a grace period runs until 2020-06-17, Apple retries after it.
    @Test(arguments: [
        ("2020-05-10T00:00:00Z", "active", false), ("2020-06-10T00:00:00Z", "gracePeriod", true), ("2020-06-20T00:00:00Z", "billingRetry", true),
    ])
    func status_givesTheManageURL_andTheBillingIssueURLOnlyWhileApplesRetries(at: String, state: String, billingIssue: Bool) throws {
        let status = try Self.status("grace", at: at)
        #expect(status["state"]?.string == state)
        #expect(status["manageURL"]?.string == Self.manage)
        #expect(status["billingIssueURL"]?.string == (billingIssue ? Self.billing : nil))
        #expect(status["billingIssueURL"]?.isNull == !billingIssue)
    }

    /// An expired subscription can be resubscribed from the same page; nothing needs fixing.
    @Test func status_ofALapsedSubscription_givesTheManageURL_notTheBillingIssueURL() throws {
        let status = try Self.status("table-6-1", at: "2020-05-10T00:00:00Z")
        #expect(status["state"]?.string == "expired")
        #expect(status["manageURL"]?.string == Self.manage)
        #expect(status["billingIssueURL"]?.isNull == true)
    }

    /// An issue bought on its own is no subscription: no link.
    @Test func status_withoutAnAppStoreSubscription_hasNoLinks() throws {
        let status = try Self.status("single-issue", at: "2020-07-02T00:00:00Z")
        #expect(status["productId"]?.isNull == true)
        #expect(status["manageURL"]?.isNull == true)
        #expect(status["billingIssueURL"]?.isNull == true)
    }
}
