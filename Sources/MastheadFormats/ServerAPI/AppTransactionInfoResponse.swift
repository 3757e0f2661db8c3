public import MastheadJSON

/// The answer of Get App Transaction Info (`GET /inApps/v1/transactions/appTransactions/{transactionId}`):
/// the customer's signed app transaction.
public struct AppTransactionInfoResponse: Hashable, Sendable, ServerAPIResponse {
    /// A signed app transaction, still to verify.
    public var signedAppTransactionInfo: String?

    /// An empty response.
    public init() {}

    /// Parses and reads a response body.
    /// - Throws: ``FormatError`` naming the JSON path and line of a member of the wrong JSON type.
    public init(decoding bytes: [UInt8]) throws(FormatError) { self = try .reading(try JSONValue.parsed(bytes), path: "$") }

    /// Reads a response body parsed already, found at `path`.
    public init(_ value: JSONValue, path: String = "$") throws(FormatError) { self = try .reading(value, path: path) }

    static let what = "an app transaction info response object"

    mutating func read(member key: UnsafeJSONKey, _ value: UnsafeJSONValue, _ fields: SignedFields) throws(FormatError) {
        switch key {
        case "signedAppTransactionInfo": signedAppTransactionInfo = try fields.string(value, "signedAppTransactionInfo")
        default: break
        }
    }
}
