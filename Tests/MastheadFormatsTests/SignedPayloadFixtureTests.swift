import Masthead
import MastheadFormats
import Testing

/// Apple's test payloads (`Tests/Fixtures/appstore-v2`) decode with every field (R2.8).
struct SignedPayloadFixtureTests {
    static func instant(_ milliseconds: Int64) -> Instant { Instant(milliseconds: milliseconds) }

    @Test func signedTransaction_decodesEveryField() throws {
        let payload = try JWSTransactionDecodedPayload(decoding: Fixtures.model("signedTransaction.json"))
        #expect(payload.originalTransactionId == "12345")
        #expect(payload.transactionId == "23456")
        #expect(payload.webOrderLineItemId == "34343")
        #expect(payload.bundleId == "com.example")
        #expect(payload.productId == "com.example.product")
        #expect(payload.subscriptionGroupIdentifier == "55555")
        #expect(payload.purchaseDate == Self.instant(1_698_148_900_000))
        #expect(payload.originalPurchaseDate == Self.instant(1_698_148_800_000))
        #expect(payload.expiresDate == Self.instant(1_698_149_000_000))
        #expect(payload.quantity == 1)
        #expect(payload.type == .autoRenewableSubscription)
        #expect(payload.appAccountToken == "7e3fb20b-4cdb-47cc-936d-99d65f608138")
        #expect(payload.inAppOwnershipType == .purchased)
        #expect(payload.signedDate == Self.instant(1_698_148_900_000))
        #expect(payload.revocationReason == .refundedDueToIssue)
        #expect(payload.revocationDate == Self.instant(1_698_148_950_000))
        #expect(payload.isUpgraded == true)
        #expect(payload.offerType == .introductoryOffer)
        #expect(payload.offerIdentifier == "abc.123")
        #expect(payload.environment == .localTesting)
        #expect(payload.transactionReason == .purchase)
        #expect(payload.storefront == "USA")
        #expect(payload.storefrontId == "143441")
        #expect(payload.price == 10990)
        #expect(payload.currency == "USD")
        #expect(payload.offerDiscountType == .payAsYouGo)
        #expect(payload.appTransactionId == "71134")
        #expect(payload.offerPeriod == "P1Y")
        #expect(payload.revocationType == nil)
        #expect(payload.revocationPercentage == nil)
        #expect(payload.billingPlanType == .monthly)
        let commitment = try #require(payload.commitmentInfo)
        #expect(commitment.billingPeriodNumber == 3)
        #expect(commitment.commitmentExpiresDate == Self.instant(1_698_150_000_000))
        #expect(commitment.commitmentPrice == 119_880)
        #expect(commitment.totalBillingPeriods == 12)
        let commerce = try #require(payload.advancedCommerceInfo)
        #expect(commerce.descriptors?.description == "Premium Plan")
        #expect(commerce.descriptors?.displayName == "Premium")
        #expect(commerce.estimatedTax == 1500)
        #expect(commerce.period == "P1M")
        #expect(commerce.requestReferenceId == "ref-12345")
        #expect(commerce.taxCode == "TAX_CODE_1")
        #expect(commerce.taxExclusivePrice == 8490)
        #expect(commerce.taxRate == "0.15")
        let item = try #require(commerce.items?.first)
        #expect(commerce.items?.count == 1)
        #expect(item.sku == "com.example.sku.premium")
        #expect(item.description == "Premium feature")
        #expect(item.displayName == "Premium Feature")
        #expect(item.offer == nil)
        #expect(item.price == 9990)
        #expect(item.revocationDate == Self.instant(1_698_149_200_000))
        let refund = try #require(item.refunds?.first)
        #expect(item.refunds?.count == 1)
        #expect(refund.refundAmount == 5000)
        #expect(refund.refundDate == Self.instant(1_698_149_100_000))
        #expect(refund.refundReason == "FULFILLMENT_ISSUE")
        #expect(refund.refundType == "PRORATED")
    }

    @Test func signedTransactionWithRevocation_decodesEveryField() throws {
        let payload = try JWSTransactionDecodedPayload(decoding: Fixtures.model("signedTransactionWithRevocation.json"))
        var expected = JWSTransactionDecodedPayload()
        expected.originalTransactionId = "12345"
        expected.transactionId = "23456"
        expected.webOrderLineItemId = "34343"
        expected.bundleId = "com.example"
        expected.productId = "com.example.product"
        expected.subscriptionGroupIdentifier = "55555"
        expected.purchaseDate = Self.instant(1_698_148_900_000)
        expected.originalPurchaseDate = Self.instant(1_698_148_800_000)
        expected.expiresDate = Self.instant(1_698_149_000_000)
        expected.quantity = 1
        expected.type = .autoRenewableSubscription
        expected.appAccountToken = "7e3fb20b-4cdb-47cc-936d-99d65f608138"
        expected.inAppOwnershipType = .purchased
        expected.signedDate = Self.instant(1_698_148_900_000)
        expected.revocationReason = .refundedDueToIssue
        expected.revocationDate = Self.instant(1_698_148_950_000)
        expected.isUpgraded = true
        expected.offerType = .introductoryOffer
        expected.offerIdentifier = "abc.123"
        expected.environment = .localTesting
        expected.storefront = "USA"
        expected.storefrontId = "143441"
        expected.transactionReason = .purchase
        expected.price = 10990
        expected.currency = "USD"
        expected.offerDiscountType = .payAsYouGo
        expected.appTransactionId = "71134"
        expected.offerPeriod = "P1Y"
        expected.revocationType = .refundProrated
        expected.revocationPercentage = 50000
        #expect(payload == expected)
    }

    @Test func signedRenewalInfo_decodesEveryField() throws {
        let payload = try JWSRenewalInfoDecodedPayload(decoding: Fixtures.model("signedRenewalInfo.json"))
        #expect(payload.expirationIntent == .customerCancelled)
        #expect(payload.originalTransactionId == "12345")
        #expect(payload.autoRenewProductId == "com.example.product.2")
        #expect(payload.productId == "com.example.product")
        #expect(payload.autoRenewStatus == .on)
        #expect(payload.isInBillingRetryPeriod == true)
        #expect(payload.priceIncreaseStatus == .customerHasNotResponded)
        #expect(payload.gracePeriodExpiresDate == Self.instant(1_698_148_900_000))
        #expect(payload.offerType == .promotionalOffer)
        #expect(payload.offerIdentifier == "abc.123")
        #expect(payload.signedDate == Self.instant(1_698_148_800_000))
        #expect(payload.environment == .localTesting)
        #expect(payload.recentSubscriptionStartDate == Self.instant(1_698_148_800_000))
        #expect(payload.renewalDate == Self.instant(1_698_148_850_000))
        #expect(payload.renewalPrice == 9990)
        #expect(payload.currency == "USD")
        #expect(payload.offerDiscountType == .payAsYouGo)
        #expect(payload.eligibleWinBackOfferIds == ["eligible1", "eligible2"])
        #expect(payload.appTransactionId == "71134")
        #expect(payload.offerPeriod == "P1Y")
        #expect(payload.appAccountToken == "7e3fb20b-4cdb-47cc-936d-99d65f608138")
        #expect(payload.renewalBillingPlanType == .monthly)
        let commitment = try #require(payload.commitmentInfo)
        #expect(commitment.commitmentAutoRenewProductId == "com.example.product.commitment")
        #expect(commitment.commitmentAutoRenewStatus == .on)
        #expect(commitment.commitmentRenewalBillingPlanType == .monthly)
        #expect(commitment.commitmentRenewalDate == Self.instant(1_698_149_500_000))
        #expect(commitment.commitmentRenewalPrice == 9990)
        let commerce = try #require(payload.advancedCommerceInfo)
        #expect(commerce.consistencyToken == "token-abc-123")
        #expect(commerce.descriptors?.description == "Premium Plan")
        #expect(commerce.descriptors?.displayName == "Premium")
        #expect(commerce.period == "P1M")
        #expect(commerce.requestReferenceId == "ref-12345")
        #expect(commerce.taxCode == "TAX_CODE_1")
        let item = try #require(commerce.items?.first)
        #expect(commerce.items?.count == 1)
        #expect(item.sku == "com.example.sku.premium")
        #expect(item.description == "Premium feature")
        #expect(item.displayName == "Premium Feature")
        #expect(item.offer == nil)
        #expect(item.price == 9990)
        #expect(item.priceIncreaseInfo?.dependentSKUs == ["com.example.sku.1", "com.example.sku.2"])
        #expect(item.priceIncreaseInfo?.price == 12990)
        #expect(item.priceIncreaseInfo?.status == "PENDING")
    }

    /// The `data` of `signedNotification.json` and `signedConsumptionRequestNotification.json`.
    static func expectedData() -> NotificationData {
        var data = NotificationData()
        data.environment = .localTesting
        data.appAppleId = 41234
        data.bundleId = "com.example"
        data.bundleVersion = "1.2.3"
        data.signedTransactionInfo = "signed_transaction_info_value"
        data.signedRenewalInfo = "signed_renewal_info_value"
        data.status = .active
        return data
    }

    @Test func signedNotification_decodesEveryField_andHandsBackTheSignedData() throws {
        let payload = try ResponseBodyV2DecodedPayload(decoding: Fixtures.model("signedNotification.json"))
        #expect(payload.notificationType == .subscribed)
        #expect(payload.subtype == .initialBuy)
        #expect(payload.notificationUUID == "002e14d5-51f5-4503-b5a8-c3a1af68eb20")
        #expect(payload.version == "2.0")
        #expect(payload.signedDate == Self.instant(1_698_148_900_000))
        #expect(payload.data == Self.expectedData())
        #expect(payload.summary == nil)
        #expect(payload.externalPurchaseToken == nil)
        #expect(payload.appData == nil)
    }

    @Test func signedConsumptionRequestNotification_decodesEveryField() throws {
        let payload = try ResponseBodyV2DecodedPayload(decoding: Fixtures.model("signedConsumptionRequestNotification.json"))
        #expect(payload.notificationType == .consumptionRequest)
        #expect(payload.subtype == nil)
        #expect(payload.notificationUUID == "002e14d5-51f5-4503-b5a8-c3a1af68eb20")
        #expect(payload.version == "2.0")
        #expect(payload.signedDate == Self.instant(1_698_148_900_000))
        var data = Self.expectedData()
        data.consumptionRequestReason = .unintendedPurchase
        #expect(payload.data == data)
    }

    @Test func signedSummaryNotification_decodesEveryField() throws {
        let payload = try ResponseBodyV2DecodedPayload(decoding: Fixtures.model("signedSummaryNotification.json"))
        #expect(payload.notificationType == .renewalExtension)
        #expect(payload.subtype == .summary)
        #expect(payload.notificationUUID == "002e14d5-51f5-4503-b5a8-c3a1af68eb20")
        #expect(payload.version == "2.0")
        #expect(payload.signedDate == Self.instant(1_698_148_900_000))
        #expect(payload.data == nil)
        var summary = NotificationSummary()
        summary.environment = .localTesting
        summary.appAppleId = 41234
        summary.bundleId = "com.example"
        summary.productId = "com.example.product"
        summary.requestIdentifier = "efb27071-45a4-4aca-9854-2a1e9146f265"
        summary.storefrontCountryCodes = ["CAN", "USA", "MEX"]
        summary.succeededCount = 5
        summary.failedCount = 2
        #expect(payload.summary == summary)
    }

    @Test func externalPurchaseTokenAndRescindConsent_decode() throws {
        let token = try ResponseBodyV2DecodedPayload(
            decoding: Fixtures.appStoreBytes("notification-v2", "apple-app-store-server-library-swift--decoded-external-purchase-token.json"))
        #expect(token.notificationType == .externalPurchaseToken)
        #expect(token.subtype == .unreported)
        var expected = ExternalPurchaseToken()
        expected.externalPurchaseId = "b2158121-7af9-49d4-9561-1f588205523e"
        expected.tokenCreationDate = Self.instant(1_698_148_950_000)
        expected.appAppleId = 55555
        expected.bundleId = "com.example"
        #expect(token.externalPurchaseToken == expected)
        let rescind = try ResponseBodyV2DecodedPayload(
            decoding: Fixtures.appStoreBytes("notification-v2", "apple-app-store-server-library-swift--decoded-rescind-consent.json"))
        #expect(rescind.notificationType == .rescindConsent)
        var app = NotificationAppData()
        app.appAppleId = 41234
        app.bundleId = "com.example"
        app.environment = .localTesting
        app.signedAppTransactionInfo = "signed_app_transaction_info_value"
        #expect(rescind.appData == app)
    }

    /// The other decoded payloads public projects record read the same as Apple's models.
    @Test func recordedDecodedPayloads_readLikeTheModels() throws {
        let folder = "notification-v2"
        let prefix = "apple-app-store-server-library-swift--"
        #expect(
            try JWSTransactionDecodedPayload(decoding: Fixtures.appStoreBytes(folder, prefix + "decoded-transaction-info.json"))
                == JWSTransactionDecodedPayload(decoding: Fixtures.model("signedTransaction.json")))
        #expect(
            try JWSRenewalInfoDecodedPayload(decoding: Fixtures.appStoreBytes(folder, prefix + "decoded-renewal-info.json")).originalTransactionId
                == "12345")
        #expect(
            try ResponseBodyV2DecodedPayload(decoding: Fixtures.appStoreBytes(folder, prefix + "decoded-subscribed-initial-buy.json"))
                == ResponseBodyV2DecodedPayload(decoding: Fixtures.model("signedNotification.json")))
        #expect(
            try ResponseBodyV2DecodedPayload(decoding: Fixtures.appStoreBytes(folder, prefix + "decoded-consumption-request.json"))
                == ResponseBodyV2DecodedPayload(decoding: Fixtures.model("signedConsumptionRequestNotification.json")))
        #expect(
            try ResponseBodyV2DecodedPayload(decoding: Fixtures.appStoreBytes(folder, prefix + "decoded-renewal-extension-summary.json"))
                == ResponseBodyV2DecodedPayload(decoding: Fixtures.model("signedSummaryNotification.json")))
    }

    @Test func mockSignedData_payloadsDecode() throws {
        let test = try ResponseBodyV2DecodedPayload(decoding: Fixtures.mockPayload("testNotification"))
        #expect(test.notificationType == .test)
        #expect(test.notificationUUID == "9ad56bd2-0bc6-42e0-af24-fd996d87a1e6")
        #expect(test.signedDate == Self.instant(1_681_314_324_000))
        #expect(test.data?.appAppleId == 1234)
        #expect(test.data?.environment == .sandbox)
        #expect(test.data?.bundleId == "com.example")
        let wrong = try ResponseBodyV2DecodedPayload(decoding: Fixtures.mockPayload("wrongBundleId"))
        #expect(wrong.notificationType == .test)
        #expect(wrong.data?.bundleId == "com.example.wrong")
        #expect(wrong.data?.environment == nil)
        let transaction = try JWSTransactionDecodedPayload(decoding: Fixtures.mockPayload("transactionInfo"))
        #expect(transaction.environment == .sandbox)
        #expect(transaction.bundleId == "com.example")
        #expect(transaction.signedDate == Self.instant(1_672_956_154_000))
        let renewal = try JWSRenewalInfoDecodedPayload(decoding: Fixtures.mockPayload("renewalInfo"))
        #expect(renewal.environment == .sandbox)
        #expect(renewal.signedDate == Self.instant(1_672_956_154_000))
    }
}
