public import MastheadJSON
import Masthead

extension JWSTransactionDecodedPayload {
    /// Parses and reads a signed transaction's payload: the JSON between the token's dots, once
    /// its signature has been verified.
    /// - Throws: ``FormatError`` naming the JSON path and line of a field of the wrong JSON type.
    public init(decoding bytes: [UInt8]) throws(FormatError) {
        let root = try JSONValue.parsed(bytes)
        try self.init(root)
    }

    /// Reads a signed transaction's payload from a parsed value found at `path`.
    public init(_ value: JSONValue, path: String = "$") throws(FormatError) {
        self = try value.withUnsafeValue { (node) throws(FormatError) in
            try JWSTransactionDecodedPayload.read(node, SignedFields(node, path: path, what: "a signed transaction payload object"))
        }
    }

    /// Reads every member of a transaction payload object; unknown members are ignored.
    static func read(_ object: UnsafeJSONValue, _ fields: SignedFields) throws(FormatError) -> JWSTransactionDecodedPayload {
        var payload = JWSTransactionDecodedPayload()
        for (key, value) in object.members {
            switch key {
            case "originalTransactionId": payload.originalTransactionId = try fields.identifier(value, "originalTransactionId")
            case "transactionId": payload.transactionId = try fields.identifier(value, "transactionId")
            case "webOrderLineItemId": payload.webOrderLineItemId = try fields.string(value, "webOrderLineItemId")
            case "bundleId": payload.bundleId = try fields.string(value, "bundleId")
            case "productId": payload.productId = try fields.identifier(value, "productId")
            case "subscriptionGroupIdentifier": payload.subscriptionGroupIdentifier = try fields.string(value, "subscriptionGroupIdentifier")
            case "purchaseDate": payload.purchaseDate = try fields.instant(value, "purchaseDate")
            case "originalPurchaseDate": payload.originalPurchaseDate = try fields.instant(value, "originalPurchaseDate")
            case "expiresDate": payload.expiresDate = try fields.instant(value, "expiresDate")
            case "quantity": payload.quantity = try fields.int32(value, "quantity")
            case "type": payload.type = try fields.string(value, "type").map(AppStoreProductType.init(rawValue:))
            case "appAccountToken": payload.appAccountToken = try fields.uuid(value, "appAccountToken")
            case "inAppOwnershipType": payload.inAppOwnershipType = try fields.string(value, "inAppOwnershipType").map(InAppOwnershipType.init(rawValue:))
            case "signedDate": payload.signedDate = try fields.instant(value, "signedDate")
            case "revocationReason": payload.revocationReason = try fields.int32(value, "revocationReason").map(RevocationReason.init(rawValue:))
            case "revocationDate": payload.revocationDate = try fields.instant(value, "revocationDate")
            case "isUpgraded": payload.isUpgraded = try fields.bool(value, "isUpgraded")
            case "offerType": payload.offerType = try fields.int32(value, "offerType").map(OfferType.init(rawValue:))
            case "offerIdentifier": payload.offerIdentifier = try fields.string(value, "offerIdentifier")
            case "environment": payload.environment = try fields.string(value, "environment").map(AppStoreEnvironment.init(rawValue:))
            case "storefront": payload.storefront = try fields.string(value, "storefront")
            case "storefrontId": payload.storefrontId = try fields.string(value, "storefrontId")
            case "transactionReason": payload.transactionReason = try fields.string(value, "transactionReason").map(TransactionReason.init(rawValue:))
            case "currency": payload.currency = try fields.string(value, "currency")
            case "price": payload.price = try fields.int64(value, "price")
            case "offerDiscountType": payload.offerDiscountType = try fields.string(value, "offerDiscountType").map(OfferDiscountType.init(rawValue:))
            case "appTransactionId": payload.appTransactionId = try fields.string(value, "appTransactionId")
            case "offerPeriod": payload.offerPeriod = try fields.string(value, "offerPeriod")
            case "revocationType": payload.revocationType = try fields.string(value, "revocationType").map(RevocationType.init(rawValue:))
            case "revocationPercentage": payload.revocationPercentage = try fields.int32(value, "revocationPercentage")
            case "advancedCommerceInfo":
                payload.advancedCommerceInfo = try fields.object(
                    value, "advancedCommerceInfo", what: "an Advanced Commerce info object", AdvancedCommerceTransactionInfo.read)
            case "billingPlanType": payload.billingPlanType = try fields.string(value, "billingPlanType").map(BillingPlanType.init(rawValue:))
            case "commitmentInfo":
                payload.commitmentInfo = try fields.object(value, "commitmentInfo", what: "a commitment info object", TransactionCommitmentInfo.read)
            default: break
            }
        }
        return payload
    }
}

extension TransactionCommitmentInfo {
    /// Reads a `commitmentInfo` object.
    static func read(_ object: UnsafeJSONValue, _ fields: SignedFields) throws(FormatError) -> TransactionCommitmentInfo {
        var info = TransactionCommitmentInfo()
        for (key, value) in object.members {
            switch key {
            case "billingPeriodNumber": info.billingPeriodNumber = try fields.int32(value, "billingPeriodNumber")
            case "commitmentExpiresDate": info.commitmentExpiresDate = try fields.instant(value, "commitmentExpiresDate")
            case "commitmentPrice": info.commitmentPrice = try fields.int64(value, "commitmentPrice")
            case "totalBillingPeriods": info.totalBillingPeriods = try fields.int32(value, "totalBillingPeriods")
            default: break
            }
        }
        return info
    }
}
