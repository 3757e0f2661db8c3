public import Masthead
public import MastheadJSON

/// An App Store status update notification, version 1, read into domain values.
public struct AppStoreNotification: Sendable {
    /// `notification_type` as sent (INITIAL_BUY, DID_RENEW, REFUND, …); kept raw so new types are not errors.
    public var type: String
    /// The `password` field: the app's shared secret.
    public var password: String?
    public var environment: Environment
    /// Transactions from `unified_receipt.latest_receipt_info` and the older top-level
    /// `latest_receipt_info` / `latest_expired_receipt_info` shapes, merged (R2.3).
    public var transactions: [Transaction]
    public var renewals: [RenewalInfo]
    /// The latest base64 receipt (`unified_receipt.latest_receipt`, `latest_receipt` or `latest_expired_receipt`).
    public var latestReceipt: String?
    /// Every original transaction the notification speaks of.
    public var originalTransactionIds: [String]

    /// The notification types of seeds 000, 002 and 003 and the later version 1 ones.
    public static let knownTypes: Set<String> = [
        "INITIAL_BUY", "CANCEL", "RENEWAL", "INTERACTIVE_RENEWAL", "DID_CHANGE_RENEWAL_PREF", "DID_CHANGE_RENEWAL_PREFERENCE",
        "DID_CHANGE_RENEWAL_STATUS", "DID_FAIL_TO_RENEW", "DID_RECOVER", "DID_RENEW", "PRICE_INCREASE_CONSENT", "REFUND",
        "REVOKE", "CONSUMPTION_REQUEST",
    ]
}

/// Reads version 1 status update notifications (seed 000, Table 6-3; seeds 002 and 003).
///
/// Every type is read the same way: the transactions and renewal info the body carries are
/// stored, so a REFUND or CANCEL arrives as a transaction with a `cancellation_date`, a DID_RENEW
/// as a new transaction, a DID_CHANGE_RENEWAL_STATUS as renewal info. The top-level renewal
/// fields (`auto_renew_status`, `auto_renew_product_id`, `expiration_intent`,
/// `is_in_billing_retry_period`, dated by `auto_renew_status_change_date`) apply to the top-level
/// `original_transaction_id`, or to the subscription of the latest transaction, and merge with
/// the `pending_renewal_info` the body gives for that subscription (R2.7).
public struct NotificationDecoder: Sendable {
    let receipts: ReceiptDecoder

    /// Creates a decoder; the catalog checks expiry dates of auto-renewable products.
    public init(catalog: Catalog? = nil) { receipts = ReceiptDecoder(catalog: catalog) }

    /// Parses and reads a notification body.
    public func decode(_ bytes: [UInt8]) throws(FormatError) -> AppStoreNotification {
        let root = try JSONValue.parsed(bytes)
        return try decode(root)
    }

    /// Reads a parsed notification body.
    public func decode(_ root: JSONValue) throws(FormatError) -> AppStoreNotification {
        try root.withUnsafeValue { (node) throws(FormatError) in try decode(node) }
    }

    private func decode(_ root: UnsafeJSONValue) throws(FormatError) -> AppStoreNotification {
        guard root.kind == .object else {
            throw FormatError.invalidValue(path: "$", line: root.line, value: root.rendered, expected: "a notification object")
        }
        guard let type = root.member("notification_type")?.string, !type.isEmpty else {
            throw FormatError.missingField(path: "$.notification_type", line: 1)
        }
        let password = root.member("password")?.string
        // The top level is read like an iOS 6-style receipt body; `unified_receipt` like a modern one.
        var body = try receipts.readBody(root, path: "$", requireStatus: false)
        var latestReceipt = root.member("latest_receipt")?.looseText ?? root.member("latest_expired_receipt")?.looseText
        if let unified = root.member("unified_receipt"), !unified.isAbsent {
            let inner = try receipts.readBody(unified, path: "$.unified_receipt", requireStatus: false)
            if root.member("environment")?.isAbsent ?? true { body.environment = inner.environment }
            body.transactions += inner.transactions
            body.renewals += inner.renewals
            latestReceipt = unified.member("latest_receipt")?.looseText ?? latestReceipt
        }
        let environment = body.environment
        let renewals = RenewalReading.renewals(body.renewals, transactions: body.transactions, environment: environment)
        let transactions = PurchaseHistory(
            transactions: body.transactions.map { transaction -> Transaction in
                var copy = transaction
                copy.environment = environment
                return copy
            }
        ).transactions
        var originals = Set(transactions.map { ExactKey($0.originalTransactionId) })
        if let original = try root.member("original_transaction_id")?.identifier(PayloadLocation(top: "$"), "original_transaction_id") {
            originals.insert(ExactKey(original))
        }
        for renewal in renewals { if let original = renewal.originalTransactionId { originals.insert(ExactKey(original)) } }
        return AppStoreNotification(
            type: type, password: password, environment: environment, transactions: transactions, renewals: renewals,
            latestReceipt: latestReceipt, originalTransactionIds: originals.sorted().map(\.text))
    }
}
