import MastheadJSON
import Masthead

extension JWSAppTransactionDecodedPayload: SignedRoot {
    /// How a signed app transaction's payload is read (``AppStoreDocument/init(decoding:)``: the
    /// JSON between the token's dots, once its signature has been verified).
    public static let documentReader = AppStoreDocumentReader<Self>(what: "a signed app transaction payload object")

    /// Reads one member of an app transaction payload object; an unknown member is ignored.
    mutating func read(member key: UnsafeJSONKey, _ value: UnsafeJSONValue, _ fields: SignedFields) throws(FormatError) {
        switch key {
        case "receiptType": receiptType = try fields.string(value, "receiptType").map(AppStoreEnvironment.init(rawValue:))
        case "appAppleId": appAppleId = try fields.int64(value, "appAppleId")
        case "bundleId": bundleId = try fields.string(value, "bundleId")
        case "applicationVersion": applicationVersion = try fields.string(value, "applicationVersion")
        case "versionExternalIdentifier": versionExternalIdentifier = try fields.int64(value, "versionExternalIdentifier")
        case "receiptCreationDate": receiptCreationDate = try fields.instant(value, "receiptCreationDate")
        case "originalPurchaseDate": originalPurchaseDate = try fields.instant(value, "originalPurchaseDate")
        case "originalApplicationVersion": originalApplicationVersion = try fields.string(value, "originalApplicationVersion")
        case "deviceVerification": deviceVerification = try fields.string(value, "deviceVerification")
        case "deviceVerificationNonce": deviceVerificationNonce = try fields.uuid(value, "deviceVerificationNonce")
        case "preorderDate": preorderDate = try fields.instant(value, "preorderDate")
        case "appTransactionId": appTransactionId = try fields.string(value, "appTransactionId")
        case "originalPlatform": originalPlatform = try fields.string(value, "originalPlatform")
        default: break
        }
    }
}
