import MastheadJSON

extension JWSRenewalInfoDecodedPayload: SignedRoot {
    /// How a signed renewal info's payload is read (``AppStoreDocument/init(decoding:)``: the JSON
    /// between the token's dots, once its signature has been verified).
    public static let documentReader = AppStoreDocumentReader<Self>(what: "a signed renewal info payload object")

    /// Reads one member of a renewal info payload object; an unknown member is ignored.
    mutating func read(member key: UnsafeJSONKey, _ value: UnsafeJSONValue, _ fields: SignedFields) throws(FormatError) {
        switch key {
        case "expirationIntent": expirationIntent = try fields.int32(value, "expirationIntent").map(ExpirationIntent.init(rawValue:))
        case "originalTransactionId": originalTransactionId = try fields.identifier(value, "originalTransactionId")
        case "autoRenewProductId": autoRenewProductId = try fields.identifier(value, "autoRenewProductId")
        case "productId": productId = try fields.identifier(value, "productId")
        case "autoRenewStatus": autoRenewStatus = try fields.int32(value, "autoRenewStatus").map(AutoRenewStatus.init(rawValue:))
        case "isInBillingRetryPeriod": isInBillingRetryPeriod = try fields.bool(value, "isInBillingRetryPeriod")
        case "priceIncreaseStatus":
            priceIncreaseStatus = try fields.int32(value, "priceIncreaseStatus").map(PriceIncreaseStatus.init(rawValue:))
        case "gracePeriodExpiresDate": gracePeriodExpiresDate = try fields.instant(value, "gracePeriodExpiresDate")
        case "offerType": offerType = try fields.int32(value, "offerType").map(OfferType.init(rawValue:))
        case "offerIdentifier": offerIdentifier = try fields.string(value, "offerIdentifier")
        case "signedDate": signedDate = try fields.instant(value, "signedDate")
        case "environment": environment = try fields.string(value, "environment").map(AppStoreEnvironment.init(rawValue:))
        case "recentSubscriptionStartDate": recentSubscriptionStartDate = try fields.instant(value, "recentSubscriptionStartDate")
        case "renewalDate": renewalDate = try fields.instant(value, "renewalDate")
        case "currency": currency = try fields.string(value, "currency")
        case "renewalPrice": renewalPrice = try fields.int64(value, "renewalPrice")
        case "offerDiscountType": offerDiscountType = try fields.string(value, "offerDiscountType").map(OfferDiscountType.init(rawValue:))
        case "eligibleWinBackOfferIds": eligibleWinBackOfferIds = try fields.strings(value, "eligibleWinBackOfferIds")
        case "appAccountToken": appAccountToken = try fields.uuid(value, "appAccountToken")
        case "appTransactionId": appTransactionId = try fields.string(value, "appTransactionId")
        case "offerPeriod": offerPeriod = try fields.string(value, "offerPeriod")
        case "advancedCommerceInfo":
            advancedCommerceInfo = try fields.object(
                value, "advancedCommerceInfo", what: "an Advanced Commerce info object", AdvancedCommerceRenewalInfo.read)
        case "commitmentInfo":
            commitmentInfo = try fields.object(value, "commitmentInfo", what: "a commitment info object", RenewalCommitmentInfo.read)
        case "renewalBillingPlanType":
            renewalBillingPlanType = try fields.string(value, "renewalBillingPlanType").map(BillingPlanType.init(rawValue:))
        default: break
        }
    }
}

extension RenewalCommitmentInfo: SignedObject {
    /// Reads one member of a renewal info's `commitmentInfo` object.
    mutating func read(member key: UnsafeJSONKey, _ value: UnsafeJSONValue, _ fields: SignedFields) throws(FormatError) {
        switch key {
        case "commitmentAutoRenewProductId": commitmentAutoRenewProductId = try fields.identifier(value, "commitmentAutoRenewProductId")
        case "commitmentAutoRenewStatus":
            commitmentAutoRenewStatus = try fields.int32(value, "commitmentAutoRenewStatus").map(AutoRenewStatus.init(rawValue:))
        case "commitmentRenewalBillingPlanType":
            commitmentRenewalBillingPlanType = try fields.string(value, "commitmentRenewalBillingPlanType").map(BillingPlanType.init(rawValue:))
        case "commitmentRenewalDate": commitmentRenewalDate = try fields.instant(value, "commitmentRenewalDate")
        case "commitmentRenewalPrice": commitmentRenewalPrice = try fields.int64(value, "commitmentRenewalPrice")
        default: break
        }
    }
}
