import Masthead
import MastheadFormats
import MastheadJSON

/// The shape of a receipts file's line, `{"user_id": "...", "receipt": {...verifyReceipt response...}}`
/// or `{"user_id": "...", "signedTransactions": [...], "signedRenewalInfos": [...]}`, either
/// optionally with the publisher's grants beside it (`"grants": [...]`, R17), or
/// `{"user_id": "...", "grants": [...]}` alone: how the audit and the import read a line's user,
/// receipt or signed data, and grants.
enum ReceiptsLine {
    /// What a line holds besides its user id and grants.
    enum Content {
        /// A verifyReceipt response.
        case receipt(UnsafeJSONValue)
        /// Signed transactions and renewal info, still to verify: the line's two arrays of tokens
        /// (each nil when left out), read where they lie in the line.
        case signed(signedTransactions: UnsafeJSONValue?, signedRenewalInfos: UnsafeJSONValue?)
        /// No purchases: the line carries grants only.
        case none
    }

    /// The JSON path of the receipt, for the decoder's error messages.
    static let receiptPath = "$.receipt"
    /// The JSON path of the grants, for the decoder's error messages.
    static let grantsPath = "$.grants"

    /// The line's user id: a non-empty string, or a number's text.
    static func userId(_ root: UnsafeJSONValue) throws(FormatError) -> String {
        guard root.kind == .object else {
            throw FormatError.invalidValue(
                path: "$", line: 1, value: root.rendered, expected: "an object with user_id and receipt (or signedTransactions, or grants)")
        }
        guard let userValue = root.member("user_id"), let userId = userValue.string ?? userValue.numberText, !userId.isEmpty else {
            throw FormatError.missingField(path: "$.user_id", line: 1)
        }
        return userId
    }

    /// The line's receipt or signed data: at most one of `receipt` and
    /// `signedTransactions`/`signedRenewalInfos`, and one of them unless the line has `grants`.
    /// - Throws: ``FormatError`` for a line with neither (and no grants), with both, with a
    ///   notification's `signedPayload`, or with a member that is not an array of tokens.
    static func content(_ root: UnsafeJSONValue) throws(FormatError) -> Content {
        let receipt = root.member("receipt")
        switch try SignedDataDocument.readInPlace(root) {
        case nil:
            if let receipt { return .receipt(receipt) }
            guard root.member("grants") != nil else { throw FormatError.missingField(path: receiptPath, line: 1) }
            return .none
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

    /// The line's grants (R17), read by ``GrantDecoder``; none when the line has no `grants` member.
    /// - Throws: ``FormatError`` naming the grant's field (`$.grants[1].start`) and its line.
    static func grants(_ root: UnsafeJSONValue) throws(FormatError) -> [Grant] {
        guard let value = root.member("grants") else { return [] }
        return try GrantDecoder.grants(value, path: grantsPath)
    }
}
