import MastheadJSON

/// The body of an App Store Server API error answer: `{"errorCode": 4040010, "errorMessage": "…"}`.
public struct ErrorPayload: Hashable, Sendable, ServerAPIResponse {
    public var errorCode: Int64?
    public var errorMessage: String?

    /// How an error body is read.
    public static let documentReader = AppStoreDocumentReader<Self>(what: "an error object")

    mutating func read(member key: UnsafeJSONKey, _ value: UnsafeJSONValue, _ fields: SignedFields) throws(FormatError) {
        switch key {
        case "errorCode": errorCode = try fields.int64(value, "errorCode")
        case "errorMessage": errorMessage = try fields.string(value, "errorMessage")
        default: break
        }
    }
}
