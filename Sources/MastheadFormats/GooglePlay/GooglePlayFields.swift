public import Masthead
import MastheadJSON

/// Reads the fields of Google's JSON (the Play Developer API's resources, real-time developer
/// notifications, Pub/Sub push bodies): every error names the field's JSON path and line.
///
/// Google's JSON follows proto3's mapping: an `int64` is a string of digits, an `int32` a number,
/// a `Timestamp` RFC 3339 text with 0, 3, 6 or 9 fractional digits (read to the millisecond);
/// members Google adds later are ignored, and an absent member and `null` are the same.
struct GooglePlayFields {
    /// The object read.
    let object: JSONValue
    /// Its JSON path.
    let path: String

    /// The object at `path`; an error when `value` is not an object.
    init(_ value: JSONValue, _ path: String, what: String) throws(FormatError) {
        guard value.kind == .object else {
            throw .invalidValue(path: path, line: value.line, value: value.rendered, expected: what)
        }
        object = value
        self.path = path
    }

    /// The path of member `key`.
    func path(_ key: String) -> String { JSONPath.member(path, key) }

    /// Member `key`, nil when absent or null.
    func value(_ key: String) -> JSONValue? {
        guard let value = object[key], !value.isNull else { return nil }
        return value
    }

    /// A member that must be present.
    func required<Value>(_ key: String, _ read: (String) throws(FormatError) -> Value?) throws(FormatError) -> Value {
        guard let value = try read(key) else { throw .missingField(path: path(key), line: object.line) }
        return value
    }

    /// The object member `key`, nil when absent.
    func object(_ key: String, what: String) throws(FormatError) -> GooglePlayFields? {
        guard let value = value(key) else { return nil }
        return try GooglePlayFields(value, path(key), what: what)
    }

    /// A string member, nil when absent; an empty string counts as absent.
    func string(_ key: String) throws(FormatError) -> String? {
        guard let value = value(key) else { return nil }
        guard let text = value.string else { throw invalid(key, value, "a string") }
        return text.isEmpty ? nil : text
    }

    /// An identifier (a purchase token, order id, product id): a string without control
    /// characters, which could make two ids store alike.
    func identifier(_ key: String) throws(FormatError) -> String? {
        guard let text = try string(key) else { return nil }
        guard !text.unicodeScalars.contains(where: IdentifierText.isControl) else {
            throw .invalidValue(path: path(key), line: value(key)?.line ?? object.line, value: IdentifierText.escaped(text), expected: "an identifier without control characters")
        }
        return text
    }

    /// A boolean member, nil when absent.
    func bool(_ key: String) throws(FormatError) -> Bool? {
        guard let value = value(key) else { return nil }
        guard let flag = value.bool else { throw invalid(key, value, "true or false") }
        return flag
    }

    /// A whole-number member (an `int32`, a JSON number), nil when absent.
    func int(_ key: String) throws(FormatError) -> Int64? {
        guard let value = value(key) else { return nil }
        guard value.kind == .number, let number = value.int64 else { throw invalid(key, value, "a whole number") }
        return number
    }

    /// An `int64` member: a string of decimal digits (or, as some clients write it, a whole
    /// number), nil when absent.
    func int64(_ key: String) throws(FormatError) -> Int64? {
        guard let value = value(key) else { return nil }
        if value.kind == .number, let number = value.int64 { return number }
        guard let text = value.string, !text.isEmpty, text.utf8.count <= 19, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            let number = Int64(text)
        else { throw invalid(key, value, "a string of decimal digits") }
        return number
    }

    /// Milliseconds since the epoch as an `int64` (`eventTimeMillis`, `purchaseTimeMillis`), in
    /// ``DateText/appStoreRange``; nil when absent.
    func milliseconds(_ key: String) throws(FormatError) -> Instant? {
        guard let number = try int64(key) else { return nil }
        let instant = Instant(milliseconds: number)
        guard DateText.appStoreRange.contains(instant) else {
            throw invalid(key, value(key)!, "milliseconds since 1970 up to year 9999")
        }
        return instant
    }

    /// An RFC 3339 `Timestamp` (`2024-05-01T12:00:00.123456789Z`, or with an offset), read to the
    /// millisecond, in ``DateText/appStoreRange``; nil when absent.
    func time(_ key: String) throws(FormatError) -> Instant? {
        guard let value = value(key) else { return nil }
        guard let text = value.string else { throw invalid(key, value, "an RFC 3339 time such as 2024-05-01T12:00:00.123Z") }
        guard let instant = DateText.rfc3339(text), DateText.appStoreRange.contains(instant) else {
            throw invalid(key, value, "an RFC 3339 time such as 2024-05-01T12:00:00.123Z")
        }
        return instant
    }

    /// An array member's elements with their paths, nil when absent.
    func array(_ key: String) throws(FormatError) -> [(value: JSONValue, path: String)]? {
        guard let value = value(key) else { return nil }
        guard value.kind == .array else { throw invalid(key, value, "an array") }
        return value.elements.enumerated().map { ($1, JSONPath.element(path(key), $0)) }
    }

    /// The error for member `key` holding `value` where `expected` was.
    func invalid(_ key: String, _ value: JSONValue, _ expected: String) -> FormatError {
        .invalidValue(path: path(key), line: value.line, value: value.rendered, expected: expected)
    }
}
