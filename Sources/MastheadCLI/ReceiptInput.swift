import Masthead
import MastheadFormats
import MastheadJSON

/// One `--receipt` file of `check` and `timeline`, told apart by its shape: a verifyReceipt
/// response, a version 1 notification body (`notification_type`), a version 2 notification body
/// (`signedPayload`), signed transactions (`signedTransactions`, `signedRenewalInfos`), or an
/// audit input line (`user_id` beside `receipt` or signed transactions, and the publisher's
/// `grants`, or `user_id` and `grants` alone).
struct ReceiptInput {
    /// What a file holds.
    enum Shape {
        /// A verifyReceipt response found at `path`.
        case receipt(JSONValue, path: String)
        /// A version 1 notification body.
        case notification(JSONValue)
        /// Signed data, still to verify.
        case signed(SignedDataDocument)
        /// No purchases: an audit input line with grants only.
        case none
    }

    /// The file, as named.
    let path: String
    let shape: Shape
    /// The audit line's `user_id`, when the file is one.
    let userId: String?
    /// The audit line's grants (R17); none for any other file.
    let grants: [Grant]

    /// Reads the shape of the file `path` holding `bytes`.
    /// - Throws: ``CLIError/invalidInput(path:_:)`` for invalid JSON, a signed member of the
    ///   wrong shape, a `receipt` beside signed data, or an audit line's grant that is not valid
    ///   (naming its field, `$.grants[1].start`).
    init(path: String, bytes: [UInt8]) throws(CLIError) {
        self.path = path
        let root: JSONValue
        do { root = try JSONDocument(parsing: bytes).root } catch { throw CLIError.invalidInput(path: path, .invalidJSON(error)) }
        let isObject = root.kind == .object
        userId = isObject ? root["user_id"].flatMap { $0.string ?? $0.numberText } : nil
        let receipt = isObject ? root["receipt"] : nil
        let grantsValue = userId != nil ? root["grants"] : nil
        do { grants = try grantsValue.map { (value) throws(FormatError) in try GrantDecoder.grants(value, path: "$.grants") } ?? [] } catch {
            throw CLIError.invalidInput(path: path, error)
        }
        let document: SignedDataDocument?
        do { document = try SignedDataDocument.read(root) } catch { throw CLIError.invalidInput(path: path, error) }
        if let document {
            if let receipt {
                throw CLIError.invalidInput(
                    path: path,
                    .invalidValue(
                        path: "$.receipt", line: receipt.line, value: receipt.rendered, expected: "no receipt beside signed data (a file carries one or the other)"))
            }
            shape = .signed(document)
        } else if let receipt, userId != nil {
            shape = .receipt(receipt, path: "$.receipt")
        } else if grantsValue != nil {
            shape = .none
        } else if isObject, root["notification_type"] != nil {
            shape = .notification(root)
        } else {
            shape = .receipt(root, path: "$")
        }
    }

    /// The purchase history the file gives, with an audit line's grants. Signed data is verified and read by the verifier
    /// `signedData` returns, asked only for a file of signed data.
    /// - Throws: ``CLIError/invalidInput(path:_:)`` naming the JSON path of what was refused (a
    ///   token whose signature, chain or app was refused), or what `signedData` threw.
    func history(catalog: Catalog, signedData: () throws(CLIError) -> SignedDataVerifier) throws(CLIError) -> PurchaseHistory {
        var history = try purchases(catalog: catalog, signedData: signedData)
        if !grants.isEmpty { history.merge(grants: grants) }
        return history
    }

    /// The purchases the file gives.
    private func purchases(catalog: Catalog, signedData: () throws(CLIError) -> SignedDataVerifier) throws(CLIError) -> PurchaseHistory {
        switch shape {
        case .receipt(let value, let at):
            return try reading { () throws(FormatError) in try ReceiptDecoder(catalog: catalog).decode(value, path: at).history }
        case .notification(let root):
            return try reading { () throws(FormatError) in
                let notification = try NotificationDecoder(catalog: catalog).decode(root)
                return PurchaseHistory(transactions: notification.transactions, renewals: notification.renewals)
            }
        case .signed(let document):
            let verifier = try signedData()
            return try reading { () throws(FormatError) in
                switch document {
                case .notification(let signedPayload): try verifier.notification(signedPayload, path: "$.signedPayload").history
                case .transactions(let transactions, let renewals):
                    try verifier.history(signedTransactions: transactions, signedRenewalInfos: renewals, path: "$")
                }
            }
        case .none:
            return PurchaseHistory()
        }
    }

    /// Runs a reader of the file's content, its errors as the file's.
    private func reading(_ read: () throws(FormatError) -> PurchaseHistory) throws(CLIError) -> PurchaseHistory {
        do { return try read() } catch { throw CLIError.invalidInput(path: path, error) }
    }
}
