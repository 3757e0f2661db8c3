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
        switch try readInPlace(value, path: path) {
        case nil: return nil
        case .notification(let payload)?: return .notification(signedPayload: payload.string!)
        case .transactions(let transactions, let renewals)?:
            return .transactions(signedTransactions: strings(transactions), signedRenewalInfos: strings(renewals))
        }
    }

    /// Reads the document at `value` as ``read(_:path:)-(UnsafeJSONValue,_)`` does, with the same
    /// checks and errors, but leaves its tokens where they lie in the parsed text: an audit's
    /// line hands them to the verifier without copying them into strings.
    package static func readInPlace(_ value: UnsafeJSONValue, path: String = "$") throws(FormatError) -> UnsafeSignedDataDocument? {
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
            guard isToken(payload) else { throw notToken(payload, path: JSONPath.member(path, "signedPayload")) }
            return .notification(signedPayload: payload)
        }
        guard transactions != nil || renewals != nil else { return nil }
        try checkTokens(transactions, path: JSONPath.member(path, "signedTransactions"))
        try checkTokens(renewals, path: JSONPath.member(path, "signedRenewalInfos"))
        return .transactions(signedTransactions: transactions, signedRenewalInfos: renewals)
    }

    /// Every token the document holds, in order.
    public var tokens: [String] {
        switch self {
        case .notification(let signedPayload): [signedPayload]
        case .transactions(let transactions, let renewals): transactions + renewals
        }
    }

    /// Whether `value` is a token: a non-empty string (its text, as written, is non-empty exactly
    /// when its decoded text is).
    private static func isToken(_ value: UnsafeJSONValue) -> Bool {
        value.kind == .string && value.rawBytes?.isEmpty == false
    }

    /// The error for `value`, found at `path`, which is not a token.
    private static func notToken(_ value: UnsafeJSONValue, path: String) -> FormatError {
        FormatError.invalidValue(path: path, line: value.line, value: value.rendered, expected: "a signed token (a non-empty string)")
    }

    /// Checks that `value`, when present, is an array of tokens (its path built only for an error).
    private static func checkTokens(_ value: UnsafeJSONValue?, path: String) throws(FormatError) {
        guard let value else { return }
        guard value.kind == .array else {
            throw FormatError.invalidValue(path: path, line: value.line, value: value.rendered, expected: "an array of signed tokens")
        }
        for (index, element) in value.elements.enumerated() where !isToken(element) {
            throw notToken(element, path: JSONPath.element(path, index))
        }
    }

    /// The decoded text of every token in `value`, an array ``checkTokens(_:path:)`` accepted.
    private static func strings(_ value: UnsafeJSONValue?) -> [String] {
        guard let value else { return [] }
        return value.elements.map { $0.string! }
    }
}

/// A document of signed App Store data read in place (``SignedDataDocument/readInPlace(_:path:)``):
/// its tokens, checked to be non-empty strings, as unowned views of the parsed text, valid only
/// while that text is.
package enum UnsafeSignedDataDocument {
    /// A version 2 notification body's `signedPayload`.
    case notification(signedPayload: UnsafeJSONValue)
    /// The `signedTransactions` and `signedRenewalInfos` arrays, each nil when left out.
    case transactions(signedTransactions: UnsafeJSONValue?, signedRenewalInfos: UnsafeJSONValue?)
}
