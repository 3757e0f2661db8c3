import MastheadCrypto
import MastheadFormats

/// The app receipt target: one input read as a receipt's PKCS #7 bytes, as its signed content
/// (the DER reader alone, past OpenSSL) and as base64 text. What is read must hold: transaction
/// ids of digits, an id to ask that is one of them, and the same answer from the base64 spelling
/// of the same bytes.
enum AppReceiptFuzzing {
    static func run(_ bytes: [UInt8]) {
        check(Result { () throws(AppReceiptError) in try AppReceipt(der: bytes) })
        let content = Result { () throws(AppReceiptError) in try AppReceipt(content: bytes) }
        check(content)
        let spelled = Result { () throws(AppReceiptError) in try AppReceipt(base64: Base64.encode(bytes, .standard)) }
        precondition(spelled == Result { () throws(AppReceiptError) in try AppReceipt(der: bytes) }, "the base64 spelling reads differently")
        if let text = String(validating: bytes, as: UTF8.self) {
            check(Result { () throws(AppReceiptError) in try AppReceipt(base64: text) })
        }
    }

    /// The rules a receipt that was read keeps.
    static func check(_ outcome: Result<AppReceipt, AppReceiptError>) {
        guard case .success(let receipt) = outcome else { return }
        for purchase in receipt.inAppPurchases {
            for id in [purchase.transactionId] + (purchase.originalTransactionId.map { [$0] } ?? []) {
                precondition(!id.isEmpty && id.utf8.count <= AppReceipt.maxTransactionIdLength, "a transaction id of a wrong length")
                precondition(id.utf8.allSatisfy { (0x30...0x39).contains($0) }, "a transaction id not of digits")
            }
        }
        let ids = receipt.inAppPurchases.flatMap { [$0.transactionId] + ($0.originalTransactionId.map { [$0] } ?? []) }
        precondition(receipt.transactionIdToAsk.map { ids.contains($0) } ?? receipt.inAppPurchases.isEmpty, "the id to ask is none of the receipt's")
    }
}
