import Foundation
import Masthead
import MastheadFormats
import Testing

/// Google Play's JSON (R18): the documented shapes decode, members Google adds are ignored, and
/// every refusal names the JSON path of what was wrong.
struct GooglePlayDecoderTests {
    static func fixture(_ name: String) throws -> [UInt8] {
        try Fixtures.bytes(Fixtures.root.appendingPathComponent("Tests/Fixtures/google-play/payloads").appendingPathComponent(name))
    }

    /// The format error `body` throws; nil when it throws none (another error is recorded).
    static func error(_ body: () throws -> Void) -> FormatError? {
        do { try body() } catch let error as FormatError { return error } catch { Issue.record("\(error)") }
        return nil
    }

    @Test func pubSubPush_decodesTheEnvelope_andItsNotification() throws {
        let push = try PubSubPush.decode(Self.fixture("pubsub-push.json"))
        #expect(push.messageId == "136969346945")
        #expect(push.subscription == "projects/myproject/subscriptions/mysubscription")
        #expect(push.publishTime?.description == "2017-08-21T21:06:06.789Z")
        #expect(push.data == (try Self.fixture("developer-notification-subscription.json")))
        let notification = try DeveloperNotification.decode(push.data)
        #expect(notification.kind == .subscription(notificationType: 4, purchaseToken: "PURCHASE_TOKEN", subscriptionId: "my.sku"))
    }

    @Test func pubSubPush_refusals_nameThePath() {
        #expect(Self.error { _ = try PubSubPush.decode(Array(#"{"message": {"data": "e30=", "messageId": "1"}}"#.utf8)) } == .missingField(path: "$.subscription", line: 1))
        #expect(
            Self.error { _ = try PubSubPush.decode(Array(#"{"message": {"data": "e30", "messageId": "1"}, "subscription": "s"}"#.utf8)) }.map { "\($0)" }?
                .contains("$.message.data") == true)
        #expect(
            Self.error { _ = try PubSubPush.decode(Array(#"{"message": {"data": "e30=", "messageId": 1}, "subscription": "s"}"#.utf8)) }
                == .invalidValue(path: "$.message.messageId", line: 1, value: "1", expected: "a string"))
    }

    @Test func developerNotifications_ofEveryKind_decode() throws {
        let oneTime = try DeveloperNotification.decode(Self.fixture("developer-notification-one-time.json"))
        #expect(oneTime.kind == .oneTimeProduct(notificationType: 1, purchaseToken: "PURCHASE_TOKEN", sku: "my.sku"))
        #expect(oneTime.packageName == "com.some.thing")
        #expect(oneTime.eventTime == Instant(milliseconds: 1_503_349_566_168))
        let voided = try DeveloperNotification.decode(Self.fixture("developer-notification-voided.json"))
        #expect(voided.kind == .voidedPurchase(purchaseToken: "PURCHASE_TOKEN", orderId: "GS.0000-0000-0000", productType: 1, refundType: 1))
        #expect(try DeveloperNotification.decode(Self.fixture("developer-notification-test.json")).kind == .test)
    }

    @Test func developerNotification_needsExactlyOnePayload_andTypedFields() {
        let none = Self.error { _ = try DeveloperNotification.decode(Array(#"{"version": "1.0", "packageName": "p", "eventTimeMillis": "1"}"#.utf8)) }
        #expect(none.map { "\($0)" }?.contains("exactly one of") == true)
        let two = #"{"version": "1.0", "packageName": "p", "eventTimeMillis": "1", "testNotification": {}, "subscriptionNotification": {"notificationType": 2, "purchaseToken": "t"}}"#
        #expect(Self.error { _ = try DeveloperNotification.decode(Array(two.utf8)) }.map { "\($0)" }?.contains("2 notifications") == true)
        let badTime = #"{"version": "1.0", "packageName": "p", "eventTimeMillis": "12x", "testNotification": {}}"#
        #expect(
            Self.error { _ = try DeveloperNotification.decode(Array(badTime.utf8)) }
                == .invalidValue(path: "$.eventTimeMillis", line: 1, value: "\"12x\"", expected: "a string of decimal digits"))
        let badType = #"{"version": "1.0", "packageName": "p", "eventTimeMillis": 1, "subscriptionNotification": {"notificationType": "2", "purchaseToken": "t"}}"#
        #expect(
            Self.error { _ = try DeveloperNotification.decode(Array(badType.utf8)) }
                == .invalidValue(path: "$.subscriptionNotification.notificationType", line: 1, value: "\"2\"", expected: "a whole number"))
        let noToken = #"{"version": "1.0", "packageName": "p", "eventTimeMillis": 1, "voidedPurchaseNotification": {"orderId": "o", "productType": 1, "refundType": 1}}"#
        #expect(
            Self.error { _ = try DeveloperNotification.decode(Array(noToken.utf8)) } == .missingField(path: "$.voidedPurchaseNotification.purchaseToken", line: 1))
    }

    @Test func subscriptionPurchaseV2_decodesWhatR18Uses_nanosecondTimesToTheMillisecond() throws {
        let purchase = try SubscriptionPurchaseV2.decode(Self.fixture("subscription-purchase-v2.json"))
        #expect(purchase.startTime?.description == "2024-04-01T12:00:00.123Z")
        #expect(purchase.subscriptionState == .active)
        #expect(purchase.latestOrderId == "GPA.3345-1234-5678-90123..0")
        #expect(purchase.linkedPurchaseToken == "OLD_PURCHASE_TOKEN")
        #expect(purchase.acknowledged)
        #expect(purchase.obfuscatedExternalAccountId == "user-42")
        #expect(!purchase.isTestPurchase)
        #expect(
            purchase.lineItems == [
                SubscriptionPurchaseV2.LineItem(
                    productId: "the_monthly", expiryTime: DateText.rfc3339("2024-06-01T12:00:00.123Z"), basePlanId: "monthly",
                    latestSuccessfulOrderId: "GPA.3345-1234-5678-90123..0", autoRenewEnabled: true)
            ])
        let pending = try SubscriptionPurchaseV2.decode(Self.fixture("subscription-purchase-v2-pending.json"))
        #expect(pending.subscriptionState == .pending)
        #expect(pending.startTime == nil)
        #expect(pending.isTestPurchase)
        #expect(!pending.acknowledged)
    }

    /// `acknowledgementState` is its exact bytes: a word spelled with the Kelvin sign (U+212A),
    /// which Swift's `==` takes for `K`, is not Google's acknowledged state; nor is another
    /// spelling of an accented id the same id.
    @Test func subscriptionPurchaseV2_acknowledgementState_isComparedByItsBytes() throws {
        let fixture = String(decoding: try Self.fixture("subscription-purchase-v2.json"), as: UTF8.self)
        #expect(fixture.contains("\"ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED\""))
        let kelvin = fixture.replacingOccurrences(of: "\"ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED\"", with: "\"AC\u{212A}NOWLEDGEMENT_STATE_ACKNOWLEDGED\"")
        #expect("AC\u{212A}NOWLEDGEMENT_STATE_ACKNOWLEDGED" == "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED")
        #expect(try !SubscriptionPurchaseV2.decode(Array(kelvin.utf8)).acknowledged)
        let precomposed = fixture.replacingOccurrences(of: "\"user-42\"", with: "\"caf\u{E9}\"")
        let decomposed = fixture.replacingOccurrences(of: "\"user-42\"", with: "\"cafe\u{301}\"")
        let accounts = try [precomposed, decomposed].map { try #require(try SubscriptionPurchaseV2.decode(Array($0.utf8)).obfuscatedExternalAccountId) }
        #expect(!accounts[0].utf8.elementsEqual(accounts[1].utf8))
        #expect(accounts[1].utf8.elementsEqual("cafe\u{301}".utf8))
    }

    /// Past pending, a purchase has paid: its start, each item's expiry and order are required.
    /// Times must be RFC 3339; a state word Google adds is kept, not refused.
    @Test func subscriptionPurchaseV2_refusals_nameThePath() throws {
        func decode(_ text: String) -> FormatError? { Self.error { _ = try SubscriptionPurchaseV2.decode(Array(text.utf8)) } }
        let item = #""productId": "p", "offerDetails": {"basePlanId": "b"}, "latestSuccessfulOrderId": "GPA.1""#
        #expect(decode(#"{"subscriptionState": "SUBSCRIPTION_STATE_ACTIVE", "lineItems": [{"#+item+#", "expiryTime": "2024-05-01T00:00:00Z"}]}"#)
            == .missingField(path: "$.startTime", line: 1))
        #expect(decode(#"{"subscriptionState": "SUBSCRIPTION_STATE_ACTIVE", "startTime": "2024-04-01T00:00:00Z", "lineItems": [{"#+item+#"}]}"#)
            == .missingField(path: "$.lineItems[0].expiryTime", line: 1))
        #expect(
            decode(#"{"subscriptionState": "SUBSCRIPTION_STATE_ACTIVE", "startTime": "2024-04-01", "lineItems": [{"#+item+#", "expiryTime": "2024-05-01T00:00:00Z"}]}"#)
                == .invalidValue(path: "$.startTime", line: 1, value: "\"2024-04-01\"", expected: "an RFC 3339 time such as 2024-05-01T12:00:00.123Z"))
        #expect(decode(#"{"subscriptionState": "SUBSCRIPTION_STATE_ACTIVE", "startTime": "2024-04-01T00:00:00Z", "lineItems": [{"productId": "p", "expiryTime": "2024-05-01T00:00:00Z"}]}"#)
            == .missingField(path: "$.lineItems[0].latestSuccessfulOrderId", line: 1))
        #expect(decode(#"{"subscriptionState": "SUBSCRIPTION_STATE_ACTIVE", "lineItems": []}"#)
            == .invalidValue(path: "$.lineItems", line: 1, value: "[]", expected: "at least one line item"))
        #expect(decode(#"{"lineItems": [{"productId": "p"}]}"#) == .missingField(path: "$.subscriptionState", line: 1))
        #expect(decode(#"{"subscriptionState": "SUBSCRIPTION_STATE_PENDING", "lineItems": [{"productId": "p", "autoRenewingPlan": {"autoRenewEnabled": "yes"}}]}"#)
            == .invalidValue(path: "$.lineItems[0].autoRenewingPlan.autoRenewEnabled", line: 1, value: "\"yes\"", expected: "true or false"))
        let later = try SubscriptionPurchaseV2.decode(Array(#"{"subscriptionState": "SUBSCRIPTION_STATE_NEW", "startTime": "2024-04-01T00:00:00Z", "lineItems": [{"#.utf8) + Array(item.utf8) + Array(#", "expiryTime": "2024-05-01T00:00:00Z"}]}"#.utf8))
        #expect(later.subscriptionState == .other("SUBSCRIPTION_STATE_NEW"))
        #expect(!later.subscriptionState.givesAccess)
    }

    @Test func productPurchase_decodes_andPendingNeedsNoOrder() throws {
        let purchase = try GooglePlayProductPurchase.decode(Self.fixture("product-purchase.json"))
        #expect(purchase.purchaseTime?.description == "2020-05-01T12:00:00Z")
        #expect(purchase.purchaseState == .oneTimePurchased)
        #expect(purchase.orderId == "GPA.3312-3456-7890-12345")
        #expect(purchase.acknowledged)
        #expect(purchase.obfuscatedExternalAccountId == "user-42")
        #expect(purchase.purchaseType == nil)
        #expect(!purchase.isTestPurchase)
        #expect(purchase.quantity == 1)
        let pending = try GooglePlayProductPurchase.decode(Array(#"{"purchaseState": 2, "purchaseType": 0}"#.utf8))
        #expect(pending.purchaseState == .oneTimePending)
        #expect(pending.isTestPurchase)
        func decode(_ text: String) -> FormatError? { Self.error { _ = try GooglePlayProductPurchase.decode(Array(text.utf8)) } }
        #expect(decode(#"{"purchaseState": 0, "orderId": "GPA.1"}"#) == .missingField(path: "$.purchaseTimeMillis", line: 1))
        #expect(decode(#"{"purchaseState": 3}"#) == .invalidValue(path: "$.purchaseState", line: 1, value: "3", expected: "0 (purchased), 1 (cancelled) or 2 (pending)"))
        #expect(decode(#"{"purchaseState": 0, "orderId": "GPA.1", "purchaseTimeMillis": "-5"}"#)
            == .invalidValue(path: "$.purchaseTimeMillis", line: 1, value: "\"-5\"", expected: "a string of decimal digits"))
        #expect(decode(#"{"purchaseState": 0, "orderId": "GPA.1", "purchaseTimeMillis": "1", "quantity": 0}"#)
            == .invalidValue(path: "$.quantity", line: 1, value: "0", expected: "a positive whole number"))
    }

    @Test func voidedPurchasesPage_decodes_withItsNextPageToken() throws {
        let page = try VoidedPurchasesPage.decode(Self.fixture("voided-purchases.json"))
        #expect(page.nextPageToken == "NEXT_PAGE_TOKEN")
        #expect(page.voidedPurchases.map(\.orderId) == ["GPA.3312-3456-7890-12345", "GPA.3345-1234-5678-90123..0"])
        #expect(page.voidedPurchases.map(\.isPartial) == [false, true])
        #expect(page.voidedPurchases[0].voidedTime.description == "2020-05-06T12:00:00Z")
        #expect(page.voidedPurchases[1].voidedSource == 1)
        #expect(try VoidedPurchasesPage.decode(Array("{}".utf8)) == VoidedPurchasesPage(voidedPurchases: []))
        #expect(
            Self.error { _ = try VoidedPurchasesPage.decode(Array(#"{"voidedPurchases": [{"purchaseToken": "t", "orderId": "o"}]}"#.utf8)) }
                == .missingField(path: "$.voidedPurchases[0].voidedTimeMillis", line: 1))
    }

    /// An id holding a control character is refused: a NUL could make two tokens store alike.
    @Test func identifiers_withControlCharacters_areRefused() {
        let text = #"{"purchaseState": 0, "orderId": "GPA.1\u0000", "purchaseTimeMillis": "1"}"#
        #expect(
            Self.error { _ = try GooglePlayProductPurchase.decode(Array(text.utf8)) }
                == .invalidValue(path: "$.orderId", line: 1, value: #""GPA.1\u0000""#, expected: "an identifier without control characters"))
    }
}
