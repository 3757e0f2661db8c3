import Foundation
import Masthead
import MastheadJSON
import MastheadService
import MastheadSQLite
import MastheadStorage
import MastheadTestSupport
import Testing

/// `POST /v1/users/{userId}/transactions`: what a StoreKit 2 app sends, verified, linked to the
/// user as a receipt is, answered as a receipt is.
struct SignedTransactionsRouteTests {
    /// Table 6-1's transactions and renewal info, signed.
    static func table61() throws -> String {
        func tx(_ id: String, _ from: String, _ to: String) throws -> String {
            try SignedFixtures.transaction(id, original: "1000001", from: from, to: to, signed: "2020-07-01T00:00:00Z")
        }
        return SignedFixtures.transactions(
            [
                try tx("1000001", "2020-02-20T12:00:00Z", "2020-03-20T12:00:00Z"), try tx("1000002", "2020-03-20T11:58:00Z", "2020-04-20T12:00:00Z"),
                try tx("1000003", "2020-06-17T12:00:00Z", "2020-07-17T12:00:00Z"),
            ],
            renewals: [try SignedFixtures.renewal(original: "1000001", autoRenew: true, signed: "2020-07-01T00:00:00Z")])
    }

    /// Table 6-1 posted as signed transactions answers what the receipt answers, and every download
    /// check after it is the receipt's.
    @Test func signedTable61_answersAsTheReceipt() throws {
        let receipt = try ServiceHarness()
        defer { receipt.close() }
        let signed = try SignedNotificationTests.harness()
        defer { signed.close() }
        let byReceipt = receipt.call("POST", "/v1/users/alice/receipts", body: try ServiceHarness.example("table-6-1"))
        let bySigned = signed.call("POST", "/v1/users/alice/transactions", json: try Self.table61())
        #expect(bySigned.status == 200)
        #expect(bySigned.body == byReceipt.body)
        SignedNotificationTests.expectSame(
            SignedNotificationTests.checks("alice") { signed.call("GET", $0).body }, SignedNotificationTests.checks("alice") { receipt.call("GET", $0).body }, "signed")
    }

    /// One refused token refuses the document: 400 `signed_data_refused` naming its path, nothing stored.
    @Test(arguments: [
        ("flipped signature", "$.signedTransactions[1]"), ("wrong bundle id", "$.signedTransactions[0].bundleId"),
        ("not a token", "$.signedRenewalInfos[0]"), ("flipped renewal signature", "$.signedRenewalInfos[0]"),
    ])
    func refusedToken_is400_namingItsPath_andNothingIsStored(refusal: String, path: String) throws {
        let harness = try SignedNotificationTests.harness()
        defer { harness.close() }
        let from = "2020-02-20T12:00:00Z"
        let first = try SignedFixtures.transaction("z1", original: "z1", from: from, to: "2020-03-20T12:00:00Z", signed: from)
        let second = try SignedFixtures.transaction("z2", original: "z1", from: "2020-03-20T12:00:00Z", to: "2020-04-20T12:00:00Z", signed: from)
        let renewal = try SignedFixtures.renewal(original: "z1", autoRenew: true, signed: from)
        let body: String
        switch refusal {
        case "flipped signature": body = SignedFixtures.transactions([first, SignedFixtures.tampered(second)], renewals: [renewal])
        case "wrong bundle id":
            let other = try SignedFixtures.transaction("z1", original: "z1", from: from, to: "2020-03-20T12:00:00Z", signed: from, bundleId: "com.example.other")
            body = SignedFixtures.transactions([other, second])
        case "not a token": body = #"{"signedTransactions": ["\#(first)"], "signedRenewalInfos": [7]}"#
        default: body = SignedFixtures.transactions([first, second], renewals: [SignedFixtures.tampered(renewal)])
        }
        let answer = harness.call("POST", "/v1/users/zoe/transactions", json: body)
        #expect(answer.status == 400)
        #expect(answer.json?["error"]?["code"]?.string == "signed_data_refused")
        #expect(answer.json?["error"]?["message"]?.string?.contains(path) == true, "\(answer.body)")
        #expect(harness.call("GET", "/v1/users/zoe/entitlements").status == 404)
        let store = try SQLiteStore(path: harness.path, readOnly: true)
        #expect(try store.database.scalar("SELECT count(*) FROM transactions") == .integer(0))
    }

    /// A body that is not a signed-transactions document is 400 `invalid_signed_data` (a receipt, a
    /// version 2 notification), or `invalid_json`.
    @Test func otherBodies_are400() throws {
        let harness = try SignedNotificationTests.harness()
        defer { harness.close() }
        let receipt = harness.call("POST", "/v1/users/zoe/transactions", body: try ServiceHarness.example("table-6-1"))
        #expect(receipt.status == 400)
        #expect(receipt.json?["error"]?["code"]?.string == "invalid_signed_data")
        let notification = harness.call("POST", "/v1/users/zoe/transactions", json: #"{"signedPayload": "a.b.c"}"#)
        #expect(notification.json?["error"]?["code"]?.string == "invalid_signed_data")
        #expect(harness.call("POST", "/v1/users/zoe/transactions", json: "{nope").json?["error"]?["code"]?.string == "invalid_json")
        #expect(harness.call("POST", "/v1/users/zoe/transactions", token: nil, json: try Self.table61()).status == 401)
    }

    /// The restore behaviour applies as for receipts: `keep` answers 409 for another user's
    /// subscription, and `transfer` moves it.
    @Test(arguments: [("keep", 409), ("transfer", 200)])
    func anotherUsersSubscription_followsTheRestoreBehaviour(restore: String, status: Int) throws {
        let harness = try SignedNotificationTests.harness { $0.restore = .init(rawValue: restore)! }
        defer { harness.close() }
        #expect(harness.call("POST", "/v1/users/bob/receipts", body: try ServiceHarness.example("table-6-1")).status == 200)
        let answer = harness.call("POST", "/v1/users/carl/transactions", json: try Self.table61())
        #expect(answer.status == status)
        if status == 409 { #expect(answer.json?["error"]?["code"]?.string == "receipt_already_in_use") }
        #expect(ServiceRouterTests.readable(harness, "carl", "2020-06", at: "2020-07-02T00:00:00Z") == (status == 200))
        #expect(ServiceRouterTests.readable(harness, "bob", "2020-06", at: "2020-07-02T00:00:00Z") == (status == 409))
    }

    /// A version 2 notification stored before the app posted its transactions counts once they link the subscription.
    @Test func notificationBeforeTheTransactions_countsOnceLinked() throws {
        let harness = try SignedNotificationTests.harness()
        defer { harness.close() }
        let renewal = try SignedFixtures.transaction("1000004", original: "1000001", from: "2020-07-17T11:58:00Z", to: "2020-08-17T12:00:00Z", signed: "2020-07-17T11:58:00Z")
        #expect(harness.call("POST", "/v1/notifications/app-store", token: nil, json: try SignedFixtures.notification("DID_RENEW", transaction: renewal, signed: "2020-07-17T11:58:00Z")).status == 200)
        #expect(harness.call("POST", "/v1/users/gus/transactions", json: try Self.table61()).status == 200)
        #expect(ServiceRouterTests.readable(harness, "gus", "2020-08", at: "2020-08-05T00:00:00Z") == true)
    }
}
