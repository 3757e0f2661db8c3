import Foundation
import MastheadJSON
import MastheadSQLite
import MastheadStorage
import MastheadTestSupport
import Testing

/// The version 2 types that carry no purchase of a catalog product — `RESCIND_CONSENT` (app
/// data), `EXTERNAL_PURCHASE_TOKEN` (an external purchase token) and the Advanced Commerce API's
/// `METADATA_UPDATE`, `MIGRATION` and `PRICE_CHANGE` (a transaction and renewal info) — each
/// with what Apple's model says it carries: verified, stored with its type, counted in `/metrics`,
/// answered 200, and no reader's answer changes.
struct NewerNotificationTypeTests {
    static let token = SignedNotificationTests.token
    static let signed = "2020-03-01T00:00:00Z"
    static let advancedCommerceProduct = "com.example.advanced"

    /// An Advanced Commerce subscription's signed transaction, for a product the catalog does not list.
    static func advancedCommerceTransaction() throws -> String {
        let (from, to) = (SignedFixtures.ms("2020-02-25T00:00:00Z"), SignedFixtures.ms("2020-03-25T00:00:00Z"))
        return try TestChain.sign(
            #"{"transactionId": "ac1", "originalTransactionId": "ac1", "bundleId": "\#(SignedFixtures.bundleId)", "productId": "\#(advancedCommerceProduct)", "purchaseDate": \#(from), "originalPurchaseDate": \#(from), "expiresDate": \#(to), "quantity": 1, "type": "Auto-Renewable Subscription", "inAppOwnershipType": "PURCHASED", "signedDate": \#(SignedFixtures.ms(signed)), "environment": "Production", "transactionReason": "PURCHASE", "storefront": "USA", "currency": "USD", "price": 7990, "appAccountToken": "\#(token)", "advancedCommerceInfo": {"descriptors": {"displayName": "Digital edition", "description": "Every issue"}, "items": [{"SKU": "advanced.digital.monthly", "displayName": "Digital edition", "description": "Every issue", "price": 7990}], "period": "P1M", "requestReferenceId": "2f6a1e4c-1b6d-4c4e-9f64-0a1b2c3d4e5f", "taxCode": "C003-00-2", "taxExclusivePrice": 7990, "estimatedTax": 0, "taxRate": "0.00"}}"#
        )
    }

    /// Its signed renewal info.
    static func advancedCommerceRenewal() throws -> String {
        try TestChain.sign(
            #"{"originalTransactionId": "ac1", "productId": "\#(advancedCommerceProduct)", "autoRenewProductId": "\#(advancedCommerceProduct)", "autoRenewStatus": 1, "isInBillingRetryPeriod": false, "signedDate": \#(SignedFixtures.ms(signed)), "environment": "Production", "renewalDate": \#(SignedFixtures.ms("2020-03-25T00:00:00Z")), "advancedCommerceInfo": {"consistencyToken": "b3f0", "descriptors": {"displayName": "Digital edition", "description": "Every issue"}, "items": [{"SKU": "advanced.digital.monthly", "displayName": "Digital edition", "description": "Every issue", "price": 8990}], "period": "P1M", "requestReferenceId": "2f6a1e4c-1b6d-4c4e-9f64-0a1b2c3d4e5f", "taxCode": "C003-00-2"}}"#
        )
    }

    /// A notification body of `type`, carrying what Apple's model gives that type.
    static func notification(_ type: String) throws -> String {
        let head = #""notificationType": "\#(type)", "notificationUUID": "\#(UUID().uuidString.lowercased())", "version": "2.0", "signedDate": \#(SignedFixtures.ms(signed))"#
        let app = #""bundleId": "\#(SignedFixtures.bundleId)", "appAppleId": \#(SignedFixtures.appAppleId)"#
        switch type {
        case "RESCIND_CONSENT":
            let appTransaction = try TestChain.sign(
                #"{\#(app), "receiptType": "Production", "applicationVersion": "1.0", "originalApplicationVersion": "1.0", "originalPurchaseDate": \#(SignedFixtures.ms("2020-01-05T00:00:00Z")), "signedDate": \#(SignedFixtures.ms(signed)), "appTransactionId": "704", "originalPlatform": "iOS"}"#)
            return SignedFixtures.body(try TestChain.sign(#"{\#(head), "appData": {\#(app), "environment": "Production", "signedAppTransactionInfo": "\#(appTransaction)"}}"#))
        case "EXTERNAL_PURCHASE_TOKEN":
            return SignedFixtures.body(
                try TestChain.sign(
                    #"{\#(head), "subtype": "UNREPORTED", "externalPurchaseToken": {"externalPurchaseId": "b2d7c4f1-5a0e-4a7c-9d8e-1f2a3b4c5d6e", "tokenCreationDate": \#(SignedFixtures.ms("2020-02-28T00:00:00Z")), \#(app)}}"#))
        default:
            return try SignedFixtures.notification(type, transaction: try advancedCommerceTransaction(), renewal: try advancedCommerceRenewal(), signed: signed)
        }
    }

    @Test(arguments: ["RESCIND_CONSENT", "EXTERNAL_PURCHASE_TOKEN", "METADATA_UPDATE", "MIGRATION", "PRICE_CHANGE"])
    func newerType_isVerifiedStoredCountedAnswered200_andChangesNoAnswer(type: String) throws {
        let harness = try SignedNotificationTests.harness()
        defer { harness.close() }
        // A reader with a subscription, linked by the app account token the Advanced Commerce transaction carries too.
        #expect(harness.call("PUT", "/v1/users/nia/app-account-tokens/\(Self.token)").status == 200)
        let (from, to) = ("2020-02-20T12:00:00Z", "2020-03-20T12:00:00Z")
        let purchase = try SignedFixtures.transaction("n1", original: "n1", from: from, to: to, signed: from, token: Self.token)
        let subscribed = try SignedFixtures.notification("SUBSCRIBED", subtype: "INITIAL_BUY", transaction: purchase, signed: from)
        #expect(harness.call("POST", "/v1/notifications/app-store", token: nil, json: subscribed).status == 200)
        let checks = { SignedNotificationTests.checks("nia") { harness.call("GET", $0).body } }
        let before = checks()
        #expect(SignedNotificationTests.readable(before, at: "2020-07-02T00:00:00Z") == ["2020-02", "2020-03"])

        let body = try Self.notification(type)
        let answer = harness.call("POST", "/v1/notifications/app-store", token: nil, json: body)
        #expect(answer.status == 200, "\(answer.body)")
        #expect(answer.body == #"{"stored":true,"applied":true}"#)
        let store = try SQLiteStore(path: harness.path, readOnly: true)
        #expect(try store.database.scalar("SELECT body FROM notifications WHERE notification_type = '\(type)'") == .text(body))
        #expect(harness.call("GET", "/metrics").body.contains(#"masthead_notifications_total{type="\#(type)"} 1"#))
        #expect(harness.call("GET", "/v1/notifications/rejected", token: "admin-token").json?["rejectedNotifications"]?.count == 0)
        SignedNotificationTests.expectSame(checks(), before, "after \(type)")
    }
}
