import MastheadJSON
import Masthead

extension JWSTransactionDecodedPayload: SignedRoot {
    /// How a signed transaction's payload is read (``AppStoreDocument/init(decoding:)``: the JSON
    /// between the token's dots, once its signature has been verified).
    public static let documentReader = AppStoreDocumentReader<Self>(what: "a signed transaction payload object")

    /// Reads one member of a transaction payload object; an unknown member is ignored.
    mutating func read(member key: UnsafeJSONKey, _ value: UnsafeJSONValue, _ fields: SignedFields) throws(FormatError) {
        switch key {
        case "originalTransactionId": originalTransactionId = try fields.identifier(value, "originalTransactionId")
        case "transactionId": transactionId = try fields.identifier(value, "transactionId")
        case "webOrderLineItemId": webOrderLineItemId = try fields.string(value, "webOrderLineItemId")
        case "bundleId": bundleId = try fields.string(value, "bundleId")
        case "productId": productId = try fields.identifier(value, "productId")
        case "subscriptionGroupIdentifier": subscriptionGroupIdentifier = try fields.string(value, "subscriptionGroupIdentifier")
        case "purchaseDate": purchaseDate = try fields.instant(value, "purchaseDate")
        case "originalPurchaseDate": originalPurchaseDate = try fields.instant(value, "originalPurchaseDate")
        case "expiresDate": expiresDate = try fields.instant(value, "expiresDate")
        case "quantity": quantity = try fields.int32(value, "quantity")
        case "type": type = try fields.string(value, "type").map(AppStoreProductType.init(rawValue:))
        case "appAccountToken": appAccountToken = try fields.uuid(value, "appAccountToken")
        case "inAppOwnershipType": inAppOwnershipType = try fields.string(value, "inAppOwnershipType").map(InAppOwnershipType.init(rawValue:))
        case "signedDate": signedDate = try fields.instant(value, "signedDate")
        case "revocationReason": revocationReason = try fields.int32(value, "revocationReason").map(RevocationReason.init(rawValue:))
        case "revocationDate": revocationDate = try fields.instant(value, "revocationDate")
        case "isUpgraded": isUpgraded = try fields.bool(value, "isUpgraded")
        case "offerType": offerType = try fields.int32(value, "offerType").map(OfferType.init(rawValue:))
        case "offerIdentifier": offerIdentifier = try fields.string(value, "offerIdentifier")
        case "environment": environment = try fields.string(value, "environment").map(AppStoreEnvironment.init(rawValue:))
        case "storefront": storefront = try fields.string(value, "storefront")
        case "storefrontId": storefrontId = try fields.string(value, "storefrontId")
        case "transactionReason": transactionReason = try fields.string(value, "transactionReason").map(TransactionReason.init(rawValue:))
        case "currency": currency = try fields.string(value, "currency")
        case "price": price = try fields.int64(value, "price")
        case "offerDiscountType": offerDiscountType = try fields.string(value, "offerDiscountType").map(OfferDiscountType.init(rawValue:))
        case "appTransactionId": appTransactionId = try fields.string(value, "appTransactionId")
        case "offerPeriod": offerPeriod = try fields.string(value, "offerPeriod")
        case "revocationType": revocationType = try fields.string(value, "revocationType").map(RevocationType.init(rawValue:))
        case "revocationPercentage": revocationPercentage = try fields.int32(value, "revocationPercentage")
        case "advancedCommerceInfo":
            advancedCommerceInfo = try fields.object(
                value, "advancedCommerceInfo", what: "an Advanced Commerce info object", AdvancedCommerceTransactionInfo.read)
        case "billingPlanType": billingPlanType = try fields.string(value, "billingPlanType").map(BillingPlanType.init(rawValue:))
        case "commitmentInfo":
            commitmentInfo = try fields.object(value, "commitmentInfo", what: "a commitment info object", TransactionCommitmentInfo.read)
        default: break
        }
    }
}

extension TransactionCommitmentInfo: SignedObject {
    /// Reads one member of a `commitmentInfo` object.
    mutating func read(member key: UnsafeJSONKey, _ value: UnsafeJSONValue, _ fields: SignedFields) throws(FormatError) {
        switch key {
        case "billingPeriodNumber": billingPeriodNumber = try fields.int32(value, "billingPeriodNumber")
        case "commitmentExpiresDate": commitmentExpiresDate = try fields.instant(value, "commitmentExpiresDate")
        case "commitmentPrice": commitmentPrice = try fields.int64(value, "commitmentPrice")
        case "totalBillingPeriods": totalBillingPeriods = try fields.int32(value, "totalBillingPeriods")
        default: break
        }
    }
}
