public import MastheadJSON

/// The answer of Get All Subscription Statuses (`GET /inApps/v1/subscriptions/{transactionId}`):
/// per subscription group, the latest signed transaction and renewal info of each subscription.
public struct StatusResponse: Hashable, Sendable, ServerAPIResponse {
    public var environment: AppStoreEnvironment?
    public var bundleId: String?
    public var appAppleId: Int64?
    public var data: [SubscriptionGroupIdentifierItem] = []

    /// An empty response.
    public init() {}

    /// Parses and reads a response body.
    /// - Throws: ``FormatError`` naming the JSON path and line of a member of the wrong JSON type.
    public init(decoding bytes: [UInt8]) throws(FormatError) { self = try .reading(try JSONValue.parsed(bytes), path: "$") }

    /// Reads a response body parsed already, found at `path`.
    public init(_ value: JSONValue, path: String = "$") throws(FormatError) { self = try .reading(value, path: path) }

    static let what = "a status response object"

    static func read(_ object: UnsafeJSONValue, _ fields: SignedFields) throws(FormatError) -> StatusResponse {
        var response = StatusResponse()
        for (key, value) in object.members {
            switch key {
            case "environment": response.environment = try fields.string(value, "environment").map(AppStoreEnvironment.init(rawValue:))
            case "bundleId": response.bundleId = try fields.string(value, "bundleId")
            case "appAppleId": response.appAppleId = try fields.int64(value, "appAppleId")
            case "data":
                response.data = try fields.objects(value, "data", what: "subscription group object", SubscriptionGroupIdentifierItem.read) ?? []
            default: break
            }
        }
        return response
    }
}

/// One subscription group of a ``StatusResponse``.
public struct SubscriptionGroupIdentifierItem: Hashable, Sendable {
    public var subscriptionGroupIdentifier: String?
    public var lastTransactions: [LastTransactionsItem] = []

    /// An empty item.
    public init() {}

    static func read(_ object: UnsafeJSONValue, _ fields: SignedFields) throws(FormatError) -> SubscriptionGroupIdentifierItem {
        var item = SubscriptionGroupIdentifierItem()
        for (key, value) in object.members {
            switch key {
            case "subscriptionGroupIdentifier": item.subscriptionGroupIdentifier = try fields.identifier(value, "subscriptionGroupIdentifier")
            case "lastTransactions":
                item.lastTransactions = try fields.objects(value, "lastTransactions", what: "last transaction object", LastTransactionsItem.read) ?? []
            default: break
            }
        }
        return item
    }
}

/// One subscription of a ``SubscriptionGroupIdentifierItem``: its status and latest signed data.
public struct LastTransactionsItem: Hashable, Sendable {
    public var status: AppStoreSubscriptionStatus?
    public var originalTransactionId: String?
    /// A signed transaction, still to verify.
    public var signedTransactionInfo: String?
    /// A signed renewal info, still to verify.
    public var signedRenewalInfo: String?

    /// An empty item.
    public init() {}

    static func read(_ object: UnsafeJSONValue, _ fields: SignedFields) throws(FormatError) -> LastTransactionsItem {
        var item = LastTransactionsItem()
        for (key, value) in object.members {
            switch key {
            case "status": item.status = try fields.int32(value, "status").map(AppStoreSubscriptionStatus.init(rawValue:))
            case "originalTransactionId": item.originalTransactionId = try fields.identifier(value, "originalTransactionId")
            case "signedTransactionInfo": item.signedTransactionInfo = try fields.string(value, "signedTransactionInfo")
            case "signedRenewalInfo": item.signedRenewalInfo = try fields.string(value, "signedRenewalInfo")
            default: break
            }
        }
        return item
    }
}
