import MastheadHTTP
import MastheadStorage

/// The rules for ids taken from the request path (user, publication, issue, grant, app account token),
/// checked before anything is looked up or stored with them, so that one id names one thing,
/// byte for byte.
///
/// After percent-decoding, a user, publication, issue or grant id is 1 to ``maxBytes`` bytes of valid
/// UTF-8 with no control character: C0 (U+0000–U+001F), DEL (U+007F) or C1 (U+0080–U+009F).
/// Without these rules `victim%00x` reached `victim`'s data (C strings end at NUL) and `%FF` and
/// `%FE` were the same user (both decode to U+FFFD). An app account token is a UUID written
/// 8-4-4-4-12 hexadecimal digits, in either case (``AppAccountToken/canonical(_:)``). A licence id
/// is 1 to ``maxLicenceBytes`` ASCII letters, digits, `.`, `_` and `-` (its member's grant is
/// named `licence:<id>`, `#<n>` added for a later membership, so the id holds no `#`). A delivery
/// id (a message of the outbox) is a whole number from 1, in decimal digits.
enum PathIdentifier: String, CaseIterable, Sendable {
    case user
    case publication
    case issue
    case grant
    case appAccountToken
    case licence
    case delivery

    /// The variable that stands for an id of this kind in a route's path template: `userId`.
    var variable: String {
        switch self {
        case .user, .publication, .issue, .grant, .licence, .delivery: rawValue + "Id"
        case .appAccountToken: rawValue
        }
    }

    /// What an id of this kind is called in error messages: `user id`.
    var name: String {
        switch self {
        case .user, .publication, .issue, .grant, .licence, .delivery: rawValue + " id"
        case .appAccountToken: "app account token"
        }
    }

    /// The longest id accepted, in UTF-8 bytes.
    static let maxBytes = 256

    /// The longest licence id accepted, in bytes.
    static let maxLicenceBytes = 64

    /// The error code of an id of this kind that breaks a rule.
    var code: String {
        switch self {
        case .user, .publication, .issue, .grant, .licence, .delivery: "invalid_\(rawValue)_id"
        case .appAccountToken: "invalid_app_account_token"
        }
    }

    /// The error naming the rule that the path segment at `index` breaks as an id of this kind
    /// (answered 400), or nil when it is a valid id.
    func problem(in request: HTTPRequest, at index: Int) -> ServiceError? {
        guard let rule = brokenRule(request, index: index) else { return nil }
        return .invalidPathIdentifier(self, rule: rule)
    }

    private func brokenRule(_ request: HTTPRequest, index: Int) -> String? {
        switch self {
        case .user, .publication, .issue, .grant:
            // ASCII is valid UTF-8: the id's string would hold the same bytes, so they are checked as they are.
            let bytes = request.pathSegmentBytes(index)
            if !bytes.contains(where: { $0 >= 0x80 }) { return bytes.withUnsafeBufferPointer { PathIdentifier.brokenRule($0, request: request, index: index) } }
        case .appAccountToken, .licence, .delivery:
            break
        }
        return brokenRule(request.pathSegment(index), request: request, index: index)
    }

    private func brokenRule(_ id: String, request: HTTPRequest, index: Int) -> String? {
        if self == .appAccountToken {
            return AppAccountToken.canonical(id) == nil ? "is not a UUID written 8-4-4-4-12 hexadecimal digits, such as 3f2504e0-4f89-41d3-9a0c-0305e82c3301" : nil
        }
        if self == .licence { return PathIdentifier.brokenLicenceRule(id) }
        if self == .delivery { return PathIdentifier.deliveryId(id) == nil ? "is not a whole number from 1 to \(Int64.max)" : nil }
        if let rule = id.utf8.withContiguousStorageIfAvailable({ PathIdentifier.brokenRule($0, request: request, index: index) }) { return rule }
        return Array(id.utf8).withUnsafeBufferPointer { PathIdentifier.brokenRule($0, request: request, index: index) }
    }

    private static func brokenRule(_ bytes: UnsafeBufferPointer<UInt8>, request: HTTPRequest, index: Int) -> String? {
        if bytes.isEmpty { return "is empty" }
        // Printable ASCII (0x20–0x7E), the usual id, needs no closer look (one comparison a byte).
        if !bytes.allSatisfy({ $0 &- 0x20 < 0x5F }) {
            var mayBeRepaired = false
            for offset in bytes.indices {
                let byte = bytes[offset]
                if byte < 0x20 || byte == 0x7F { return "contains the control character \(codePoint(byte)) at byte \(offset)" }
                // C1 controls are U+0080–U+009F: 0xC2 0x80–0x9F in UTF-8.
                if byte == 0xC2, offset + 1 < bytes.count, bytes[offset + 1] >= 0x80, bytes[offset + 1] <= 0x9F {
                    return "contains the control character \(codePoint(bytes[offset + 1])) at byte \(offset)"
                }
                // U+FFFD (0xEF 0xBF 0xBD) is what decoding put in place of invalid UTF-8, or was sent as such.
                if byte == 0xEF { mayBeRepaired = true }
            }
            if mayBeRepaired, String(validating: request.pathSegmentBytes(index), as: UTF8.self) == nil {
                return "is not valid UTF-8 after percent-decoding"
            }
        }
        if bytes.count > maxBytes { return "is longer than \(maxBytes) bytes (\(bytes.count))" }
        return nil
    }

    private static func brokenLicenceRule(_ id: String) -> String? {
        if id.isEmpty { return "is empty" }
        if id.utf8.count > maxLicenceBytes { return "is longer than \(maxLicenceBytes) bytes (\(id.utf8.count))" }
        let allowed = { (byte: UInt8) in
            (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || byte == 0x2E || byte == 0x5F || byte == 0x2D
        }
        if let offset = id.utf8.firstIndex(where: { !allowed($0) }).map({ id.utf8.distance(from: id.utf8.startIndex, to: $0) }) {
            return "holds a byte other than ASCII letters, digits, '.', '_' and '-' at byte \(offset)"
        }
        return nil
    }

    /// A delivery id's number: 1 to 19 ASCII digits, from 1 to `Int64.max`; nil otherwise.
    static func deliveryId(_ id: String) -> Int64? {
        guard !id.isEmpty, id.utf8.count <= 19, id.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let number = Int64(id), number > 0 else { return nil }
        return number
    }

    private static func codePoint(_ value: UInt8) -> String {
        let hex = String(value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: 4 - hex.count) + hex
    }
}
