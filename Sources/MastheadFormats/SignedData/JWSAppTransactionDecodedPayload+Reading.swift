public import MastheadJSON
import Masthead

extension JWSAppTransactionDecodedPayload: SignedRoot {
    /// Parses and reads a signed app transaction's payload: the JSON between the token's dots,
    /// once its signature has been verified.
    /// - Throws: ``FormatError`` naming the JSON path and line of a field of the wrong JSON type.
    public init(decoding bytes: [UInt8]) throws(FormatError) { self = try .reading(try JSONValue.parsed(bytes), path: "$") }

    /// Reads a signed app transaction's payload from a parsed value found at `path`.
    public init(_ value: JSONValue, path: String = "$") throws(FormatError) { self = try .reading(value, path: path) }

    static let what = "a signed app transaction payload object"

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
