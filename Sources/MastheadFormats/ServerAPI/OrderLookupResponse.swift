import MastheadJSON

/// The answer of Look Up Order ID (`GET /inApps/v1/lookup/{orderId}`): whether the order id is
/// valid (`status` 0) or not (1), and the signed transactions of the order.
public struct OrderLookupResponse: Hashable, Sendable, ServerAPIResponse {
    /// 0: valid; 1: invalid (Apple's `OrderLookupStatus`).
    public var status: Int32?
    /// Signed transactions, still to verify.
    public var signedTransactions: [String] = []

    /// How a response body is read.
    public static let documentReader = AppStoreDocumentReader<Self>(what: "an order lookup response object")

    mutating func read(member key: UnsafeJSONKey, _ value: UnsafeJSONValue, _ fields: SignedFields) throws(FormatError) {
        switch key {
        case "status": status = try fields.int32(value, "status")
        case "signedTransactions": signedTransactions = try fields.strings(value, "signedTransactions") ?? []
        default: break
        }
    }
}
