import MastheadJSON

/// The answer of Get Transaction Info (`GET /inApps/v1/transactions/{transactionId}`): one signed transaction.
public struct TransactionInfoResponse: Hashable, Sendable, ServerAPIResponse {
    /// A signed transaction, still to verify.
    public var signedTransactionInfo: String?

    /// How a response body is read.
    public static let documentReader = AppStoreDocumentReader<Self>(what: "a transaction info response object")

    mutating func read(member key: UnsafeJSONKey, _ value: UnsafeJSONValue, _ fields: SignedFields) throws(FormatError) {
        switch key {
        case "signedTransactionInfo": signedTransactionInfo = try fields.string(value, "signedTransactionInfo")
        default: break
        }
    }
}
