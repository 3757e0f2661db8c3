import Masthead
public import MastheadJSON

/// Where an object sits in a payload, turned into a JSON path only when an error is reported.
struct PayloadLocation {
    /// The path of the verifyReceipt response (or notification) object, e.g. `$.receipt`.
    let top: String
    /// Up to two member names leading from there to the containing array or object.
    private var first: StaticString?
    private var second: StaticString?
    /// The element index when the object is an array element.
    private(set) var index: Int?

    init(top: String) { self.top = top }

    /// The location of member `name` of this object.
    func member(_ name: StaticString) -> PayloadLocation {
        var location = self
        if first == nil { location.first = name } else { location.second = name }
        return location
    }

    /// The location of element `index` of this array.
    func element(_ index: Int) -> PayloadLocation {
        var location = self
        location.index = index
        return location
    }

    /// The path of the object (or array) itself.
    var objectPath: String {
        var path = top
        if let first { path = JSONPath.member(path, first.description) }
        if let second { path = JSONPath.member(path, second.description) }
        return index.map { JSONPath.element(path, $0) } ?? path
    }

    /// The path of the object's member `key`.
    func path(_ key: String) -> String { JSONPath.member(objectPath, key) }
}

/// Reading App Store field shapes (R2.1, R2.2, R2.5) from JSON values.
extension UnsafeJSONValue {
    /// Null, an empty string and an empty object count as absent (R2.5).
    var isAbsent: Bool {
        switch kind {
        case .null: return true
        case .string: return rawBytes?.isEmpty ?? false
        case .object: return count == 0
        default: return false
        }
    }

    /// An identifier given as a string or an integer number (real payloads use both); one
    /// holding a control character (U+0000–U+001F, U+007F–U+009F) is an error, as a NUL or a
    /// line break would make distinct ids compare or store as one. (Invalid UTF-8 never gets
    /// this far: the JSON reader rejects it.)
    func identifier(_ location: PayloadLocation, _ key: String) throws(FormatError) -> String? {
        // Most identifiers: a non-empty string without escapes whose bytes cannot hold a control character.
        if let raw = plainStringBytes, !raw.isEmpty, !IdentifierText.mayHoldControlCharacter(raw) { return String(decoding: raw, as: UTF8.self) }
        if isAbsent { return nil }
        switch kind {
        case .string:
            guard let raw = rawBytes, IdentifierText.mayHoldControlCharacter(raw) else { return string }
            let text = string ?? ""
            guard text.unicodeScalars.contains(where: IdentifierText.isControl) else { return text }
            throw FormatError.invalidValue(
                path: location.path(key), line: line, value: IdentifierText.escaped(text),
                expected: "an identifier without control characters")
        case .number:
            guard int64 != nil, let text = numberText else { break }
            return text
        default: break
        }
        throw FormatError.invalidValue(path: location.path(key), line: line, value: rendered, expected: "a string or integer identifier")
    }

    /// Free text given as a string or a number; nil when absent.
    var looseText: String? {
        if isAbsent { return nil }
        switch kind {
        case .string: return string
        case .number: return numberText
        default: return nil
        }
    }

    /// A flag given as a boolean, `"true"`/`"false"`, `"1"`/`"0"` or the numbers 1/0 (R2.2).
    func flag(_ location: PayloadLocation, _ key: String) throws(FormatError) -> Bool? {
        // Most flags: a string without escapes spelling one.
        if let text = plainStringBytes, let flag = plainFlag(text) { return flag }
        if isAbsent { return nil }
        switch kind {
        case .true: return true
        case .false: return false
        case .number:
            if let value = int64, value == 0 || value == 1 { return value == 1 }
        case .string:
            // One with escapes, decoded; "false" first: receipts' flags are mostly false.
            if plainStringBytes == nil {
                if stringEquals("false") { return false }
                if stringEquals("true") || stringEquals("1") { return true }
                if stringEquals("0") { return false }
            }
        default: break
        }
        throw FormatError.invalidValue(path: location.path(key), line: line, value: rendered, expected: "a flag (true/false, \"1\"/\"0\")")
    }

    /// The flag a string without escapes spells, compared byte by byte: `"false"`, `"true"`,
    /// `"1"` or `"0"`; nil for any other text.
    @inline(__always)
    private func plainFlag(_ text: UnsafeBufferPointer<UInt8>) -> Bool? {
        switch text.count {
        case 5:
            let isFalse = text[0] == UInt8(ascii: "f") && text[1] == UInt8(ascii: "a") && text[2] == UInt8(ascii: "l")
                && text[3] == UInt8(ascii: "s") && text[4] == UInt8(ascii: "e")
            return isFalse ? false : nil
        case 4:
            let isTrue = text[0] == UInt8(ascii: "t") && text[1] == UInt8(ascii: "r") && text[2] == UInt8(ascii: "u") && text[3] == UInt8(ascii: "e")
            return isTrue ? true : nil
        case 1:
            return text[0] == UInt8(ascii: "1") ? true : text[0] == UInt8(ascii: "0") ? false : nil
        default:
            return nil
        }
    }

    /// Milliseconds since the epoch given as a number or a string of digits (an `_ms` field).
    var milliseconds: Int64? {
        switch kind {
        case .number: return int64
        case .string: return digitsInt64
        default: return nil
        }
    }

    /// The value as it appears in the payload, for error messages (strings quoted, long ones cut).
    public var rendered: String {
        switch kind {
        case .string:
            let text = string ?? ""
            return "\"" + (text.count > 60 ? String(text.prefix(60)) + "…" : text) + "\""
        case .number: return numberText ?? "?"
        case .true: return "true"
        case .false: return "false"
        case .null: return "null"
        case .object: return "an object"
        case .array: return "an array"
        }
    }
}

/// The same reading on owning values, for decoders outside the hot path.
extension JSONValue {
    /// The value as it appears in the payload, for error messages (strings quoted, long ones cut).
    public var rendered: String { withUnsafeValue { $0.rendered } }
}

/// Reads a date field `X_date` the way R2.1 says: `X_date_ms` when present (string or number);
/// else `X_date` as all-digit milliseconds, Apple's `yyyy-MM-dd HH:mm:ss Etc/GMT`, or RFC 3339.
/// Either form must lie in ``DateText/appStoreRange``.
func appStoreDate(
    milliseconds: UnsafeJSONValue?, text: UnsafeJSONValue?, location: PayloadLocation, key: String
) throws(FormatError) -> Instant? {
    if let milliseconds, !milliseconds.isAbsent {
        guard let value = milliseconds.milliseconds else {
            throw FormatError.invalidValue(
                path: location.path(key + "_ms"), line: milliseconds.line, value: milliseconds.rendered,
                expected: "milliseconds since 1970 (digits)")
        }
        return try inAppStoreRange(Instant(milliseconds: value), milliseconds, location, key, millisecondsField: true)
    }
    guard let text, !text.isAbsent else { return nil }
    if let value = text.milliseconds { return try inAppStoreRange(Instant(milliseconds: value), text, location, key, millisecondsField: false) }
    if let instant = text.withStringBytes({ DateText.appleUTC(bytes: $0) ?? DateText.rfc3339(bytes: $0) }) ?? nil {
        return try inAppStoreRange(instant, text, location, key, millisecondsField: false)
    }
    throw FormatError.invalidValue(
        path: location.path(key), line: text.line, value: text.rendered,
        expected: "a date (milliseconds, \"yyyy-MM-dd HH:mm:ss Etc/GMT\" or RFC 3339)")
}

/// `instant`, read from `value` (field `key`, or `key_ms`), when it lies in ``DateText/appStoreRange``.
private func inAppStoreRange(
    _ instant: Instant, _ value: UnsafeJSONValue, _ location: PayloadLocation, _ key: String, millisecondsField: Bool
) throws(FormatError) -> Instant {
    guard DateText.appStoreRange.contains(instant) else {
        throw FormatError.invalidValue(
            path: location.path(millisecondsField ? key + "_ms" : key), line: value.line, value: value.rendered,
            expected: "a date from 1970-01-01 through 9999-12-31 (UTC)")
    }
    return instant
}
