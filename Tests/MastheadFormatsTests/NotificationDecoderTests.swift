import Masthead
import MastheadFormats
import Testing

/// Version 1 status update notifications from public projects, and each documented type.
struct NotificationDecoderTests {
    static let expectations: [String: (type: String, environment: Environment, transactions: Int, originals: Int)] = [
        "aporat-store-receipt-validator--did-renew.json": ("DID_RENEW", .production, 1, 1),
        "app-vise-laravel-appstore-notifications--initial-buy-all-fields.json": ("INITIAL_BUY", .sandbox, 1, 1),
        "educreations-python-iap--did-fail-to-renew-latest-expired.json": ("DID_FAIL_TO_RENEW", .production, 1, 1),
        "educreations-python-iap--initial-buy-prod-both-receipt-forms.json": ("INITIAL_BUY", .production, 1, 1),
        "educreations-python-iap--refund-non-subscription.json": ("REFUND", .production, 1, 1),
        "gabrielgarza-monza--cancel-legacy-receipt-in-unified.json": ("CANCEL", .production, 1, 1),
        "gabrielgarza-monza--did-change-renewal-pref.json": ("DID_CHANGE_RENEWAL_PREF", .sandbox, 1, 1),
        "gabrielgarza-monza--renewal-unified-receipt-array.json": ("RENEWAL", .sandbox, 22, 1),
        "imdhemy-appstore-iap--did-change-renewal-status.json": ("DID_CHANGE_RENEWAL_STATUS", .production, 54, 1),
    ]

    @Test func everyFixture_hasAnExpectation() {
        #expect(Set(Fixtures.appStoreFiles("notification-v1")) == Set(Self.expectations.keys))
    }

    @Test(arguments: expectations.keys.sorted())
    func fixture_decodes(name: String) throws {
        let expected = Self.expectations[name]!
        let notification = try NotificationDecoder().decode(Fixtures.appStoreBytes("notification-v1", name))
        #expect(notification.type == expected.type)
        #expect(notification.environment == expected.environment)
        #expect(notification.transactions.count == expected.transactions)
        #expect(notification.originalTransactionIds.count == expected.originals)
        #expect(notification.password != nil)
        #expect(AppStoreNotification.knownTypes.contains(notification.type))
    }

    @Test func refund_carriesCancellation_andTopLevelRenewalFieldsApply() throws {
        let refund = try NotificationDecoder().decode(Fixtures.appStoreBytes("notification-v1", "educreations-python-iap--refund-non-subscription.json"))
        #expect(refund.transactions.first?.cancellation != nil)
        let change = try NotificationDecoder().decode(Fixtures.appStoreBytes("notification-v1", "gabrielgarza-monza--did-change-renewal-pref.json"))
        #expect(change.renewals.contains { $0.autoRenewProductId != nil && $0.originalTransactionId == change.originalTransactionIds.first })
    }

    @Test func missingType_andNonObject_areErrors() {
        #expect(throws: FormatError.missingField(path: "$.notification_type", line: 1)) {
            try NotificationDecoder().decode(Array(#"{"password": "x"}"#.utf8))
        }
        #expect(throws: FormatError.self) { try NotificationDecoder().decode(Array("[]".utf8)) }
    }
}
