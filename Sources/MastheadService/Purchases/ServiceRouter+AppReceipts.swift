import MastheadFormats
import MastheadHTTP
import MastheadJSON

/// `POST /v1/users/{userId}/app-receipts`: the base64 app receipt an app still sends, read only
/// for a transaction id, then restored from Apple's App Store Server API.
extension ServiceRouter {
    /// An app receipt: `{"appReceipt": "<base64>"}`. The receipt is read as Apple's
    /// `ReceiptUtility` reads it, its signature unjudged (``AppReceipt``): only a pointer to the
    /// customer. A receipt that is not one answers 400 `invalid_app_receipt` (naming the base64,
    /// PKCS #7 or ASN.1 problem and its offset), one without in-app purchases 422
    /// `app_receipt_without_purchases`; otherwise its transaction id is restored as by
    /// `POST /v1/users/{userId}/restore`, with the same answers and errors.
    func postAppReceipt(_ request: HTTPRequest, userId: String, reply: @escaping @Sendable (HTTPResponse) -> Void) {
        let receipt: AppReceipt
        do { receipt = try Self.appReceipt(request.body) } catch { return reply(error.failure.response) }
        guard let transactionId = receipt.transactionIdToAsk else { return reply(PurchaseError.appReceiptWithoutPurchases.response) }
        restore(transactionId: transactionId, userId: userId, reply: reply)
    }

    /// The body's app receipt: `{"appReceipt": "…"}` and no other member.
    static func appReceipt(_ body: [UInt8]) throws(AnyServiceFailure) -> AppReceipt {
        let root = try object(body, members: ["appReceipt"]) { PurchaseError.invalidAppReceipt($0) }
        guard let value = root.member("appReceipt") else {
            throw AnyServiceFailure(PurchaseError.invalidAppReceipt(#"expected {"appReceipt": "…"}: $.appReceipt is missing"#))
        }
        guard let text = value.string else { throw AnyServiceFailure(PurchaseError.invalidAppReceipt("$.appReceipt must be a string of base64")) }
        do { return try AppReceipt(base64: text) } catch { throw AnyServiceFailure(PurchaseError.invalidAppReceipt("$.appReceipt: \(error)")) }
    }
}
