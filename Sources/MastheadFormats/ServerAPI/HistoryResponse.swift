import MastheadJSON

/// One page of Get Transaction History (`GET /inApps/v2/history/{transactionId}`): signed
/// transactions, and the `revision` to ask for the next page while `hasMore`.
public struct HistoryResponse: Hashable, Sendable, ServerAPIResponse, AppMembers {
    public var revision: String?
    public var hasMore: Bool?
    public var bundleId: String?
    public var appAppleId: Int64?
    public var environment: AppStoreEnvironment?
    /// Signed transactions, still to verify.
    public var signedTransactions: [String] = []

    /// How a response body is read.
    public static let documentReader = AppStoreDocumentReader<Self>(what: "a history response object")

    mutating func read(member key: UnsafeJSONKey, _ value: UnsafeJSONValue, _ fields: SignedFields) throws(FormatError) {
        switch key {
        case "revision": revision = try fields.string(value, "revision")
        case "hasMore": hasMore = try fields.bool(value, "hasMore")
        case "signedTransactions": signedTransactions = try fields.strings(value, "signedTransactions") ?? []
        default: try readAppMember(key, value, fields)
        }
    }
}
