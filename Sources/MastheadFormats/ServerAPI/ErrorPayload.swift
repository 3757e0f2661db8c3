public import MastheadJSON

/// The body of an App Store Server API error answer: `{"errorCode": 4040010, "errorMessage": "…"}`.
public struct ErrorPayload: Hashable, Sendable, ServerAPIResponse {
    public var errorCode: Int64?
    public var errorMessage: String?

    /// An empty payload.
    public init() {}

    /// Parses and reads an error body.
    /// - Throws: ``FormatError`` naming the JSON path and line of a member of the wrong JSON type.
    public init(decoding bytes: [UInt8]) throws(FormatError) { self = try .reading(try JSONValue.parsed(bytes), path: "$") }

    /// Reads an error body parsed already, found at `path`.
    public init(_ value: JSONValue, path: String = "$") throws(FormatError) { self = try .reading(value, path: path) }

    static let what = "an error object"

    mutating func read(member key: UnsafeJSONKey, _ value: UnsafeJSONValue, _ fields: SignedFields) throws(FormatError) {
        switch key {
        case "errorCode": errorCode = try fields.int64(value, "errorCode")
        case "errorMessage": errorMessage = try fields.string(value, "errorMessage")
        default: break
        }
    }
}
