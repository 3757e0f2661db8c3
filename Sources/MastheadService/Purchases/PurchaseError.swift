import MastheadFormats

/// The errors of the purchase routes: receipts, signed transactions, restores, app receipts and
/// the subscriptions due for a refresh.
enum PurchaseError: ServiceFailure {
    /// The body is not a receipt (a `FormatError` other than `receiptRejected`).
    case invalidReceipt(FormatError)
    /// The receipt's status says Apple refused it (`FormatError.receiptRejected`).
    case receiptRejected(FormatError)
    /// A signed-transactions document was refused: a token's signature, app or payload, or the
    /// document's shape (the reason, naming the JSON path).
    case signedDataRefused(FormatError)
    /// The body is JSON but not a signed-transactions document.
    case notSignedTransactions
    /// A receipt's subscription is linked to another user (restore behaviour `refuse`).
    case receiptAlreadyInUse(environment: String, originalTransactionId: String)
    /// A restore's body is not `{"transactionId": "…"}` with a transaction id of digits: what is wrong.
    case invalidTransactionId(String)
    /// A restore needs the App Store Server API, which is not configured: what is missing.
    case appStoreServerAPINotConfigured(String)
    /// Apple refused the App Store Server API key (HTTP 401 or 403): the key id, issuer id and
    /// bundle id to check.
    case appStoreServerAPIKeyRefused(String)
    /// Apple knows no transaction with this id, in production nor in the sandbox.
    case transactionNotFound(String)
    /// A signed token in Apple's answer was refused (the reason, naming its JSON path).
    case appleSignedDataRefused(String)
    /// Apple could not be asked, or its answer not read: why.
    case appStoreServerAPIFailed(String)
    /// As many restores as allowed are asking Apple already.
    case tooManyRestores(Int)
    /// A restore not done within `restoreTimeoutMilliseconds` (Apple too slow, or the write not
    /// begun in time): why; nothing is stored.
    case restoreTimedOut(String)
    /// `within` is not a duration such as `3d`.
    case invalidWindow
    /// An app receipt's body is not `{"appReceipt": "…"}` with a readable receipt: what is wrong
    /// (the JSON path, or the base64, PKCS #7 or ASN.1 problem and its offset).
    case invalidAppReceipt(String)
    /// An app receipt without in-app purchases: no transaction id to restore from.
    case appReceiptWithoutPurchases

    var rendering: (status: Int, code: String, message: String) {
        switch self {
        case .invalidReceipt(let error): (400, "invalid_receipt", error.description)
        case .receiptRejected(let error): (422, "receipt_rejected", error.description)
        case .signedDataRefused(let error): (400, "signed_data_refused", "the signed data was refused: \(error.description)")
        case .notSignedTransactions:
            (400, "invalid_signed_data", #"expected a signed-transactions document: {"signedTransactions": ["…"], "signedRenewalInfos": ["…"]}"#)
        case .receiptAlreadyInUse(let environment, let original):
            (409, "receipt_already_in_use", "subscription \(original) (\(environment)) is linked to another user")
        case .invalidTransactionId(let reason): (400, "invalid_transaction_id", reason)
        case .appStoreServerAPINotConfigured(let reason):
            (503, "app_store_server_api_not_configured", "restore needs the App Store Server API: \(reason)")
        case .appStoreServerAPIKeyRefused(let reason): (503, "app_store_server_api_key_refused", reason)
        case .transactionNotFound(let transactionId):
            (404, "transaction_not_found", "Apple knows no transaction \(transactionId), in production nor in the sandbox")
        case .appleSignedDataRefused(let reason): (502, "apple_signed_data_refused", reason)
        case .appStoreServerAPIFailed(let reason): (502, "app_store_server_api_unavailable", reason)
        case .tooManyRestores(let limit): (503, "too_many_restores", "\(limit) restores are asking Apple already; try again shortly")
        case .restoreTimedOut(let reason):
            (504, "restore_timeout", "the restore was not done within restoreTimeoutMilliseconds, and nothing is stored: \(reason)")
        case .invalidWindow: (400, "invalid_window", "within must be a number followed by d, h, m or s, such as 3d")
        case .invalidAppReceipt(let reason): (400, "invalid_app_receipt", reason)
        case .appReceiptWithoutPurchases:
            (422, "app_receipt_without_purchases", "the app receipt holds no in-app purchase, so no transaction id to restore from")
        }
    }

    static var examples: [PurchaseError] {
        let reason = FormatError.missingField(path: "$", line: 1)
        return [
            .invalidReceipt(reason), .receiptRejected(.receiptRejected(status: 21000, meaning: "")), .signedDataRefused(reason), .notSignedTransactions,
            .receiptAlreadyInUse(environment: "", originalTransactionId: ""), .invalidTransactionId(""), .appStoreServerAPINotConfigured(""),
            .appStoreServerAPIKeyRefused(""), .transactionNotFound(""), .appleSignedDataRefused(""), .appStoreServerAPIFailed(""), .tooManyRestores(1),
            .restoreTimedOut(""), .invalidWindow, .invalidAppReceipt(""), .appReceiptWithoutPurchases,
        ]
    }
}
