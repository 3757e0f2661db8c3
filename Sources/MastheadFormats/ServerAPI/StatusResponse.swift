import MastheadJSON

/// The answer of Get All Subscription Statuses (`GET /inApps/v1/subscriptions/{transactionId}`):
/// per subscription group, the latest signed transaction and renewal info of each subscription.
public struct StatusResponse: Hashable, Sendable, ServerAPIResponse, AppMembers {
    public var environment: AppStoreEnvironment?
    public var bundleId: String?
    public var appAppleId: Int64?
    public var data: [SubscriptionGroupIdentifierItem] = []

    /// How a response body is read.
    public static let documentReader = AppStoreDocumentReader<Self>(what: "a status response object")

    mutating func read(member key: UnsafeJSONKey, _ value: UnsafeJSONValue, _ fields: SignedFields) throws(FormatError) {
        switch key {
        case "data":
            data = try fields.objects(value, "data", what: "subscription group object", SubscriptionGroupIdentifierItem.read) ?? []
        default: try readAppMember(key, value, fields)
        }
    }
}

/// One subscription group of a ``StatusResponse``.
public struct SubscriptionGroupIdentifierItem: Hashable, Sendable, SignedObject {
    public var subscriptionGroupIdentifier: String?
    public var lastTransactions: [LastTransactionsItem] = []

    mutating func read(member key: UnsafeJSONKey, _ value: UnsafeJSONValue, _ fields: SignedFields) throws(FormatError) {
        switch key {
        case "subscriptionGroupIdentifier": subscriptionGroupIdentifier = try fields.identifier(value, "subscriptionGroupIdentifier")
        case "lastTransactions":
            lastTransactions = try fields.objects(value, "lastTransactions", what: "last transaction object", LastTransactionsItem.read) ?? []
        default: break
        }
    }
}

/// One subscription of a ``SubscriptionGroupIdentifierItem``: its status and latest signed data.
public struct LastTransactionsItem: Hashable, Sendable, SignedObject {
    public var status: AppStoreSubscriptionStatus?
    public var originalTransactionId: String?
    /// A signed transaction, still to verify.
    public var signedTransactionInfo: String?
    /// A signed renewal info, still to verify.
    public var signedRenewalInfo: String?

    mutating func read(member key: UnsafeJSONKey, _ value: UnsafeJSONValue, _ fields: SignedFields) throws(FormatError) {
        switch key {
        case "status": status = try fields.int32(value, "status").map(AppStoreSubscriptionStatus.init(rawValue:))
        case "originalTransactionId": originalTransactionId = try fields.identifier(value, "originalTransactionId")
        case "signedTransactionInfo": signedTransactionInfo = try fields.string(value, "signedTransactionInfo")
        case "signedRenewalInfo": signedRenewalInfo = try fields.string(value, "signedRenewalInfo")
        default: break
        }
    }
}
