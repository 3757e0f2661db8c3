import MastheadJSON

/// The answer of Get App Transaction Info (`GET /inApps/v1/transactions/appTransactions/{transactionId}`):
/// the customer's signed app transaction.
public struct AppTransactionInfoResponse: Hashable, Sendable, ServerAPIResponse {
    /// A signed app transaction, still to verify.
    public var signedAppTransactionInfo: String?

    /// How a response body is read.
    public static let documentReader = AppStoreDocumentReader<Self>(what: "an app transaction info response object")

    mutating func read(member key: UnsafeJSONKey, _ value: UnsafeJSONValue, _ fields: SignedFields) throws(FormatError) {
        switch key {
        case "signedAppTransactionInfo": signedAppTransactionInfo = try fields.string(value, "signedAppTransactionInfo")
        default: break
        }
    }
}
