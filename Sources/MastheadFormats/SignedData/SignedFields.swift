import Masthead
import MastheadJSON

/// Reads the members of one object of a signed payload as Apple's models type them (R2.8).
///
/// A member of another JSON type is an error naming its JSON path and line; `null` counts as
/// absent, as in Apple's library. Paths are built only when an error is reported.
struct SignedFields {
    /// The path of the object, such as `$.data`.
    let path: String

    /// Checks that `value` (at `path`) is an object; `what` names it in the error.
    init(_ value: UnsafeJSONValue, path: String, what: String) throws(FormatError) {
        guard value.kind == .object else {
            throw FormatError.invalidValue(path: path, line: value.line, value: value.rendered, expected: what)
        }
        self.path = path
    }

    /// The path of member `key`.
    func path(_ key: StaticString) -> String { JSONPath.member(path, key.description) }

    /// A JSON string.
    func string(_ value: UnsafeJSONValue, _ key: StaticString) throws(FormatError) -> String? {
        if value.isNull { return nil }
        guard let text = value.string else { throw invalid(value, key, expected: "a string") }
        return text
    }

    /// A JSON string used as an App Store identifier: one holding a control character is an
    /// error, as in receipts (R2).
    func identifier(_ value: UnsafeJSONValue, _ key: StaticString) throws(FormatError) -> String? {
        guard let text = try string(value, key) else { return nil }
        if let raw = value.rawBytes, IdentifierText.mayHoldControlCharacter(raw), text.unicodeScalars.contains(where: IdentifierText.isControl) {
            throw FormatError.invalidValue(
                path: path(key), line: value.line, value: IdentifierText.escaped(text), expected: "an identifier without control characters")
        }
        return text
    }

    /// A JSON string holding a UUID (`8-4-4-4-12` hexadecimal digits), returned in lower case.
    func uuid(_ value: UnsafeJSONValue, _ key: StaticString) throws(FormatError) -> String? {
        guard let text = try string(value, key) else { return nil }
        guard let canonical = UUIDText.canonical(text) else { throw invalid(value, key, expected: "a UUID") }
        return canonical
    }

    /// A JSON integer that fits in 64 bits.
    func int64(_ value: UnsafeJSONValue, _ key: StaticString) throws(FormatError) -> Int64? {
        if value.isNull { return nil }
        guard value.kind == .number, let number = value.int64 else { throw invalid(value, key, expected: "an integer") }
        return number
    }

    /// A JSON integer that fits in 32 bits.
    func int32(_ value: UnsafeJSONValue, _ key: StaticString) throws(FormatError) -> Int32? {
        if value.isNull { return nil }
        guard value.kind == .number, let number = value.int64, let small = Int32(exactly: number) else {
            throw invalid(value, key, expected: "a 32-bit integer")
        }
        return small
    }

    /// A JSON boolean.
    func bool(_ value: UnsafeJSONValue, _ key: StaticString) throws(FormatError) -> Bool? {
        if value.isNull { return nil }
        guard let flag = value.bool else { throw invalid(value, key, expected: "true or false") }
        return flag
    }

    /// A date: a JSON integer of milliseconds since 1970, within ``DateText/appStoreRange``.
    func instant(_ value: UnsafeJSONValue, _ key: StaticString) throws(FormatError) -> Instant? {
        if value.isNull { return nil }
        guard value.kind == .number, let milliseconds = value.int64, DateText.appStoreRange.contains(Instant(milliseconds: milliseconds)) else {
            throw invalid(value, key, expected: "milliseconds since 1970 (an integer, up to 9999-12-31)")
        }
        return Instant(milliseconds: milliseconds)
    }

    /// A JSON array of strings.
    func strings(_ value: UnsafeJSONValue, _ key: StaticString) throws(FormatError) -> [String]? {
        if value.isNull { return nil }
        guard value.kind == .array else { throw invalid(value, key, expected: "an array of strings") }
        var result: [String] = []
        for (index, element) in value.elements.enumerated() {
            guard let text = element.string else {
                throw FormatError.invalidValue(
                    path: JSONPath.element(path(key), index), line: element.line, value: element.rendered, expected: "a string")
            }
            result.append(text)
        }
        return result
    }

    /// A nested object, read by `read` with its own fields.
    func object<Value>(
        _ value: UnsafeJSONValue, _ key: StaticString, what: String, _ read: (UnsafeJSONValue, SignedFields) throws(FormatError) -> Value
    ) throws(FormatError) -> Value? {
        if value.isNull { return nil }
        return try read(value, SignedFields(value, path: path(key), what: what))
    }

    /// A JSON array of objects, each read by `read` with its own fields.
    func objects<Value>(
        _ value: UnsafeJSONValue, _ key: StaticString, what: String, _ read: (UnsafeJSONValue, SignedFields) throws(FormatError) -> Value
    ) throws(FormatError) -> [Value]? {
        if value.isNull { return nil }
        guard value.kind == .array else { throw invalid(value, key, expected: "an array of \(what)s") }
        var result: [Value] = []
        for (index, element) in value.elements.enumerated() {
            let elementPath = JSONPath.element(path(key), index)
            result.append(try read(element, SignedFields(element, path: elementPath, what: what)))
        }
        return result
    }

    private func invalid(_ value: UnsafeJSONValue, _ key: StaticString, expected: String) -> FormatError {
        FormatError.invalidValue(path: path(key), line: value.line, value: value.rendered, expected: expected)
    }
}

/// Lets a `switch` over an object's keys name them as string literals.
func ~= (name: StaticString, key: UnsafeJSONKey) -> Bool { key == name }
