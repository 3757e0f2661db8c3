public import MastheadJSON

/// A document of signed App Store data, told apart from receipts and version 1 notifications
/// by its shape: the tokens it holds, still to verify.
public enum SignedDataDocument: Hashable, Sendable {
    /// A version 2 notification body, `{"signedPayload": "…"}`.
    case notification(signedPayload: String)
    /// What a StoreKit 2 app sends, `{"signedTransactions": ["…"], "signedRenewalInfos": ["…"]}`
    /// (either member may be left out).
    case transactions(signedTransactions: [String], signedRenewalInfos: [String])

    /// Parses `bytes` and reads the document; nil when it has neither shape.
    public static func read(_ bytes: [UInt8]) throws(FormatError) -> SignedDataDocument? {
        let root = try JSONValue.parsed(bytes)
        return try read(root)
    }

    /// Reads the document at `value` (found at `path`); nil when it is not an object holding
    /// `signedPayload`, `signedTransactions` or `signedRenewalInfos`.
    /// - Throws: ``FormatError`` naming the JSON path and line of a member that is not a token
    ///   (a non-empty string), or an array of them, and of `signedPayload` beside the others.
    public static func read(_ value: JSONValue, path: String = "$") throws(FormatError) -> SignedDataDocument? {
        try value.withUnsafeValue { (node) throws(FormatError) in try read(node, path: path) }
    }

    /// Reads the document through an unowned view of its value (an audit's line parsed in place).
    package static func read(_ value: UnsafeJSONValue, path: String = "$") throws(FormatError) -> SignedDataDocument? {
        guard value.kind == .object else { return nil }
        let payload = value.member("signedPayload")
        let transactions = value.member("signedTransactions")
        let renewals = value.member("signedRenewalInfos")
        if let payload {
            if let other = transactions ?? renewals {
                let key = transactions != nil ? "signedTransactions" : "signedRenewalInfos"
                throw FormatError.invalidValue(
                    path: JSONPath.member(path, key), line: other.line, value: other.rendered, expected: "nothing beside signedPayload")
            }
            return .notification(signedPayload: try token(payload, path: JSONPath.member(path, "signedPayload")))
        }
        guard transactions != nil || renewals != nil else { return nil }
        return .transactions(
            signedTransactions: try tokens(transactions, path: JSONPath.member(path, "signedTransactions")),
            signedRenewalInfos: try tokens(renewals, path: JSONPath.member(path, "signedRenewalInfos")))
    }

    /// Every token the document holds, in order.
    public var tokens: [String] {
        switch self {
        case .notification(let signedPayload): [signedPayload]
        case .transactions(let transactions, let renewals): transactions + renewals
        }
    }

    private static func token(_ value: UnsafeJSONValue, path: String) throws(FormatError) -> String {
        guard let text = value.string, !text.isEmpty else {
            throw FormatError.invalidValue(path: path, line: value.line, value: value.rendered, expected: "a signed token (a non-empty string)")
        }
        return text
    }

    private static func tokens(_ value: UnsafeJSONValue?, path: String) throws(FormatError) -> [String] {
        guard let value else { return [] }
        guard value.kind == .array else {
            throw FormatError.invalidValue(path: path, line: value.line, value: value.rendered, expected: "an array of signed tokens")
        }
        var result: [String] = []
        for (index, element) in value.elements.enumerated() { result.append(try token(element, path: JSONPath.element(path, index))) }
        return result
    }
}
