import MastheadFormats
import MastheadJSON

/// The shape of a receipts file's line, `{"user_id": "...", "receipt": {...verifyReceipt response...}}`:
/// how the audit and the import read a line's user and receipt.
enum ReceiptsLine {
    /// The JSON path of the receipt, for the decoder's error messages.
    static let receiptPath = "$.receipt"

    /// The line's user id: a non-empty string, or a number's text.
    static func userId(_ root: UnsafeJSONValue) throws(FormatError) -> String {
        guard root.kind == .object else {
            throw FormatError.invalidValue(path: "$", line: 1, value: root.rendered, expected: "an object with user_id and receipt")
        }
        guard let userValue = root.member("user_id"), let userId = userValue.string ?? userValue.numberText, !userId.isEmpty else {
            throw FormatError.missingField(path: "$.user_id", line: 1)
        }
        return userId
    }

    /// The line's verifyReceipt response.
    static func receipt(_ root: UnsafeJSONValue) throws(FormatError) -> UnsafeJSONValue {
        guard let receipt = root.member("receipt") else { throw FormatError.missingField(path: receiptPath, line: 1) }
        return receipt
    }
}
