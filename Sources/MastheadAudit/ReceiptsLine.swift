import MastheadFormats
import MastheadJSON

/// The shape of a receipts file's line, `{"user_id": "...", "receipt": {...verifyReceipt response...}}`
/// or, for the audit, `{"user_id": "...", "signedTransactions": [...], "signedRenewalInfos": [...]}`:
/// how the audit and the import read a line's user and receipt or signed data.
enum ReceiptsLine {
    /// What a line holds besides its user id.
    enum Content {
        /// A verifyReceipt response.
        case receipt(UnsafeJSONValue)
        /// Signed transactions and renewal info, still to verify.
        case signed(signedTransactions: [String], signedRenewalInfos: [String])
    }

    /// The JSON path of the receipt, for the decoder's error messages.
    static let receiptPath = "$.receipt"

    /// The line's user id: a non-empty string, or a number's text.
    static func userId(_ root: UnsafeJSONValue) throws(FormatError) -> String {
        guard root.kind == .object else {
            throw FormatError.invalidValue(path: "$", line: 1, value: root.rendered, expected: "an object with user_id and receipt (or signedTransactions)")
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

    /// The line's receipt or signed data: exactly one of `receipt` and
    /// `signedTransactions`/`signedRenewalInfos`.
    /// - Throws: ``FormatError`` for a line with neither, with both, with a notification's
    ///   `signedPayload`, or with a member that is not an array of tokens.
    static func content(_ root: UnsafeJSONValue) throws(FormatError) -> Content {
        let receipt = root.member("receipt")
        switch try SignedDataDocument.read(root) {
        case nil:
            guard let receipt else { throw FormatError.missingField(path: receiptPath, line: 1) }
            return .receipt(receipt)
        case .notification?:
            let payload = root.member("signedPayload")
            throw FormatError.invalidValue(
                path: "$.signedPayload", line: payload?.line ?? 1, value: payload?.rendered ?? "",
                expected: "receipt, or signedTransactions and signedRenewalInfos (a notification is not a user's line)")
        case .transactions(let transactions, let renewals)?:
            if let receipt {
                throw FormatError.invalidValue(
                    path: receiptPath, line: receipt.line, value: receipt.rendered,
                    expected: "no receipt beside signedTransactions or signedRenewalInfos (a line carries one or the other)")
            }
            return .signed(signedTransactions: transactions, signedRenewalInfos: renewals)
        }
    }
}
