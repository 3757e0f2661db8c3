public import MastheadCrypto

/// Why an app receipt could not be read, naming what was wrong and where.
public enum AppReceiptError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The text is not strict base64 (the reason names the offset).
    case invalidBase64(String)
    /// The bytes are not PKCS #7 signed data with content.
    case notPKCS7(PKCS7Error)
    /// The signed content is not a receipt's ASN.1: what was wrong at `offset`, counted in bytes
    /// from the start of the signed content.
    case invalidASN1(offset: Int, reason: String)
    /// An in-app purchase's transaction id (type 1703 or 1705, at `offset` of the signed content)
    /// is not 1 to ``AppReceipt/maxTransactionIdLength`` ASCII digits.
    case invalidTransactionId(offset: Int, value: String)

    public var description: String {
        switch self {
        case .invalidBase64(let reason): "the app receipt is not base64: \(reason)"
        case .notPKCS7(let error): "the app receipt is \(error)"
        case .invalidASN1(let offset, let reason): "the app receipt's content is not a receipt: at offset \(offset): \(reason)"
        case .invalidTransactionId(let offset, let value):
            "the app receipt's transaction id at offset \(offset) is \"\(value)\", not 1 to \(AppReceipt.maxTransactionIdLength) digits"
        }
    }
}
