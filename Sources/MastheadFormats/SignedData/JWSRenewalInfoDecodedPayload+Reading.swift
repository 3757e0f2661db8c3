public import MastheadJSON

extension JWSRenewalInfoDecodedPayload {
    /// Parses and reads a signed renewal info's payload: the JSON between the token's dots, once
    /// its signature has been verified.
    /// - Throws: ``FormatError`` naming the JSON path and line of a field of the wrong JSON type.
    public init(decoding bytes: [UInt8]) throws(FormatError) {
        let root = try JSONValue.parsed(bytes)
        try self.init(root)
    }

    /// Reads a signed renewal info's payload from a parsed value found at `path`.
    public init(_ value: JSONValue, path: String = "$") throws(FormatError) {
        self = try value.withUnsafeValue { (node) throws(FormatError) in
            try JWSRenewalInfoDecodedPayload.read(node, SignedFields(node, path: path, what: "a signed renewal info payload object"))
        }
    }

    /// Reads every member of a renewal info payload object; unknown members are ignored.
    static func read(_ object: UnsafeJSONValue, _ fields: SignedFields) throws(FormatError) -> JWSRenewalInfoDecodedPayload {
        var payload = JWSRenewalInfoDecodedPayload()
        for (key, value) in object.members {
            switch key {
            case "expirationIntent": payload.expirationIntent = try fields.int32(value, "expirationIntent").map(ExpirationIntent.init(rawValue:))
            case "originalTransactionId": payload.originalTransactionId = try fields.identifier(value, "originalTransactionId")
            case "autoRenewProductId": payload.autoRenewProductId = try fields.identifier(value, "autoRenewProductId")
            case "productId": payload.productId = try fields.identifier(value, "productId")
            case "autoRenewStatus": payload.autoRenewStatus = try fields.int32(value, "autoRenewStatus").map(AutoRenewStatus.init(rawValue:))
            case "isInBillingRetryPeriod": payload.isInBillingRetryPeriod = try fields.bool(value, "isInBillingRetryPeriod")
            case "priceIncreaseStatus":
                payload.priceIncreaseStatus = try fields.int32(value, "priceIncreaseStatus").map(PriceIncreaseStatus.init(rawValue:))
            case "gracePeriodExpiresDate": payload.gracePeriodExpiresDate = try fields.instant(value, "gracePeriodExpiresDate")
            case "offerType": payload.offerType = try fields.int32(value, "offerType").map(OfferType.init(rawValue:))
            case "offerIdentifier": payload.offerIdentifier = try fields.string(value, "offerIdentifier")
            case "signedDate": payload.signedDate = try fields.instant(value, "signedDate")
            case "environment": payload.environment = try fields.string(value, "environment").map(AppStoreEnvironment.init(rawValue:))
            case "recentSubscriptionStartDate": payload.recentSubscriptionStartDate = try fields.instant(value, "recentSubscriptionStartDate")
            case "renewalDate": payload.renewalDate = try fields.instant(value, "renewalDate")
            case "currency": payload.currency = try fields.string(value, "currency")
            case "renewalPrice": payload.renewalPrice = try fields.int64(value, "renewalPrice")
            case "offerDiscountType": payload.offerDiscountType = try fields.string(value, "offerDiscountType").map(OfferDiscountType.init(rawValue:))
            case "eligibleWinBackOfferIds": payload.eligibleWinBackOfferIds = try fields.strings(value, "eligibleWinBackOfferIds")
            case "appAccountToken": payload.appAccountToken = try fields.uuid(value, "appAccountToken")
            case "appTransactionId": payload.appTransactionId = try fields.string(value, "appTransactionId")
            case "offerPeriod": payload.offerPeriod = try fields.string(value, "offerPeriod")
            case "advancedCommerceInfo":
                payload.advancedCommerceInfo = try fields.object(
                    value, "advancedCommerceInfo", what: "an Advanced Commerce info object", AdvancedCommerceRenewalInfo.read)
            case "commitmentInfo":
                payload.commitmentInfo = try fields.object(value, "commitmentInfo", what: "a commitment info object", RenewalCommitmentInfo.read)
            case "renewalBillingPlanType":
                payload.renewalBillingPlanType = try fields.string(value, "renewalBillingPlanType").map(BillingPlanType.init(rawValue:))
            default: break
            }
        }
        return payload
    }
}

extension RenewalCommitmentInfo {
    /// Reads a renewal info's `commitmentInfo` object.
    static func read(_ object: UnsafeJSONValue, _ fields: SignedFields) throws(FormatError) -> RenewalCommitmentInfo {
        var info = RenewalCommitmentInfo()
        for (key, value) in object.members {
            switch key {
            case "commitmentAutoRenewProductId": info.commitmentAutoRenewProductId = try fields.identifier(value, "commitmentAutoRenewProductId")
            case "commitmentAutoRenewStatus":
                info.commitmentAutoRenewStatus = try fields.int32(value, "commitmentAutoRenewStatus").map(AutoRenewStatus.init(rawValue:))
            case "commitmentRenewalBillingPlanType":
                info.commitmentRenewalBillingPlanType = try fields.string(value, "commitmentRenewalBillingPlanType").map(BillingPlanType.init(rawValue:))
            case "commitmentRenewalDate": info.commitmentRenewalDate = try fields.instant(value, "commitmentRenewalDate")
            case "commitmentRenewalPrice": info.commitmentRenewalPrice = try fields.int64(value, "commitmentRenewalPrice")
            default: break
            }
        }
        return info
    }
}
