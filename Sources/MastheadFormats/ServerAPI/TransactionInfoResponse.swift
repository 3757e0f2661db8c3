public import MastheadJSON

/// The answer of Get Transaction Info (`GET /inApps/v1/transactions/{transactionId}`): one signed transaction.
public struct TransactionInfoResponse: Hashable, Sendable, ServerAPIResponse {
    /// A signed transaction, still to verify.
    public var signedTransactionInfo: String?

    /// An empty response.
    public init() {}

    /// Parses and reads a response body.
    /// - Throws: ``FormatError`` naming the JSON path and line of a member of the wrong JSON type.
    public init(decoding bytes: [UInt8]) throws(FormatError) { self = try .reading(try JSONValue.parsed(bytes), path: "$") }

    /// Reads a response body parsed already, found at `path`.
    public init(_ value: JSONValue, path: String = "$") throws(FormatError) { self = try .reading(value, path: path) }

    static let what = "a transaction info response object"

    mutating func read(member key: UnsafeJSONKey, _ value: UnsafeJSONValue, _ fields: SignedFields) throws(FormatError) {
        switch key {
        case "signedTransactionInfo": signedTransactionInfo = try fields.string(value, "signedTransactionInfo")
        default: break
        }
    }
}
