/// A value inside a parsed ``JSONDocument`` read through plain pointers, without reference
/// counting: the fast path for decoders that read many fields.
///
/// Like `UnsafeBufferPointer`, it does not keep the document alive: use it only inside the
/// closure given to ``JSONValue/withUnsafeValue(_:)``, and never let it (or a key, member or
/// element read from it) escape that closure.
@usableFromInline package struct UnsafeJSONValue {
    @usableFromInline let tape: UnsafePointer<JSONToken>
    /// The document's first byte: lines are counted from here.
    @usableFromInline let bytes: UnsafePointer<UInt8>
    @usableFromInline let index: Int

    @usableFromInline
    init(tape: UnsafePointer<JSONToken>, bytes: UnsafePointer<UInt8>, index: Int) {
        self.tape = tape
        self.bytes = bytes
        self.index = index
    }

    @inlinable var token: JSONToken { tape[index] }

    /// The kind of value.
    @inlinable package var kind: JSONKind { token.kind }

    /// Whether the value is `null`.
    package var isNull: Bool { token.kind == .null }

    /// The line (from 1) on which the value starts, for error messages.
    package var line: Int {
        let token = token
        let start = Int(token.kind == .string ? token.start - 1 : token.start)
        var line = 1
        for offset in 0..<start where bytes[offset] == 0x0A { line += 1 }
        return line
    }

    /// The bytes of a string (between its quotes, escapes not decoded) or number.
    @inlinable var text: UnsafeBufferPointer<UInt8> {
        let token = token
        return UnsafeBufferPointer(start: bytes + Int(token.start), count: Int(token.end &- token.start))
    }

    // MARK: Scalars

    /// The decoded text of a string value; `nil` for any other kind.
    package var string: String? {
        let token = token
        guard token.kind == .string else { return nil }
        return token.hasEscapes ? JSONValue.unescape(text) : String(decoding: text, as: UTF8.self)
    }

    /// A boolean value; `nil` for any other kind.
    package var bool: Bool? {
        switch token.kind {
        case .true: true
        case .false: false
        default: nil
        }
    }

    /// The source text of a number (as written, e.g. `1.5e3`); `nil` for any other kind.
    package var numberText: String? {
        guard token.kind == .number else { return nil }
        return String(decoding: text, as: UTF8.self)
    }

    /// An integer number that fits in `Int64`, written without fraction or exponent; else `nil`.
    package var int64: Int64? {
        guard token.kind == .number else { return nil }
        return JSONValue.parseInt64(text)
    }

    /// A string of ASCII digits only (no sign, no escapes) read as an integer that fits in
    /// `Int64`; `nil` for anything else.
    package var digitsInt64: Int64? {
        let token = token
        guard token.kind == .string, !token.hasEscapes, text.first != UInt8(ascii: "-") else { return nil }
        return JSONValue.parseInt64(text)
    }

    /// A number as a `Double`; `nil` for any other kind or when out of `Double`'s range.
    package var double: Double? {
        guard let text = numberText, let value = Double(text), value.isFinite else { return nil }
        return value
    }

    /// The raw UTF-8 bytes between a string's quotes (escapes not decoded), or of a number's
    /// text; `nil` for other kinds. Valid as long as the value is.
    @inlinable package var rawBytes: UnsafeBufferPointer<UInt8>? {
        let kind = token.kind
        guard kind == .string || kind == .number else { return nil }
        return text
    }

    /// The bytes of a string value without escapes, which are its text as it is; nil for a
    /// string with escapes and for other kinds.
    @inlinable package var plainStringBytes: UnsafeBufferPointer<UInt8>? {
        let token = token
        guard token.kind == .string, !token.hasEscapes else { return nil }
        return text
    }

    /// Calls `body` with the UTF-8 bytes of a string value, unescaped (copied only when the value
    /// has escapes); nil for any other kind.
    @inlinable
    package func withStringBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R? {
        let token = token
        guard token.kind == .string else { return nil }
        if token.hasEscapes {
            var decoded = JSONValue.unescape(text)
            return try decoded.withUTF8(body)
        }
        return try body(text)
    }

    /// Whether the value is a string whose decoded text equals `expected`.
    package func stringEquals(_ expected: StaticString) -> Bool {
        let token = token
        guard token.kind == .string else { return false }
        if token.hasEscapes { return string == expected.description }
        return JSONValue.equal(text, expected)
    }

    // MARK: Containers

    /// The number of members of an object or elements of an array; 0 for scalars.
    package var count: Int {
        switch token.kind {
        case .object: members.reduce(0) { total, _ in total + 1 }
        case .array: elements.reduce(0) { total, _ in total + 1 }
        default: 0
        }
    }

    /// The value of an object's member `key` (names are unique: ``JSONDocument``); `nil` when absent or not an object.
    package func member(_ key: StaticString) -> UnsafeJSONValue? {
        for (name, value) in members where name == key { return value }
        return nil
    }

    /// The value of an object's member `key` (names are unique: ``JSONDocument``); `nil` when absent or not an object.
    package subscript(key: String) -> UnsafeJSONValue? {
        for (name, value) in members where name.string == key { return value }
        return nil
    }

    /// An object's members in document order; empty for other kinds.
    @inlinable package var members: UnsafeJSONMembers { UnsafeJSONMembers(children: TapeChildren(of: self, kind: .object)) }

    /// An array's elements in document order; empty for other kinds.
    @inlinable package var elements: UnsafeJSONElements { UnsafeJSONElements(children: TapeChildren(of: self, kind: .array)) }
}

/// An object member's key, compared in place against expected names; valid as long as its value is.
@usableFromInline package struct UnsafeJSONKey {
    @usableFromInline let start: UnsafePointer<UInt8>
    @usableFromInline let length: Int
    @usableFromInline let hasEscapes: Bool

    @usableFromInline
    init(start: UnsafePointer<UInt8>, length: Int, hasEscapes: Bool) {
        self.start = start
        self.length = length
        self.hasEscapes = hasEscapes
    }

    /// The decoded key.
    @usableFromInline package var string: String {
        let text = UnsafeBufferPointer(start: start, count: length)
        return hasEscapes ? JSONValue.unescape(text) : String(decoding: text, as: UTF8.self)
    }

    /// The decoded key's length in UTF-8 bytes: a cheap first test before comparing names.
    @inlinable package var utf8Count: Int { hasEscapes ? string.utf8.count : length }

    /// Whether the key equals `name`: a length check for most names, then a byte comparison.
    /// Inlinable, so that a reader matching a key against many names pays a call only for
    /// names of the key's length.
    @inlinable package static func == (key: UnsafeJSONKey, name: StaticString) -> Bool {
        if key.hasEscapes { return key.string == name.description }
        guard key.length == name.utf8CodeUnitCount else { return false }
        return JSONValue.equal(UnsafeBufferPointer(start: key.start, count: key.length), name)
    }
}

/// The members of an object, in document order.
@usableFromInline package struct UnsafeJSONMembers: Sequence, IteratorProtocol {
    @usableFromInline var children: TapeChildren

    @usableFromInline
    init(children: TapeChildren) { self.children = children }

    /// The next member.
    @inlinable
    package mutating func next() -> (key: UnsafeJSONKey, value: UnsafeJSONValue)? {
        guard let key = children.next(), let value = children.next() else { return nil }
        let keyToken = key.token
        return (UnsafeJSONKey(start: key.bytes + Int(keyToken.start), length: Int(keyToken.end &- keyToken.start), hasEscapes: keyToken.hasEscapes), value)
    }
}

/// The elements of an array, in document order.
@usableFromInline package struct UnsafeJSONElements: Sequence, IteratorProtocol {
    @usableFromInline var children: TapeChildren

    @usableFromInline
    init(children: TapeChildren) { self.children = children }

    /// The next element.
    @inlinable
    package mutating func next() -> UnsafeJSONValue? { children.next() }
}

/// The values directly inside a container, in tape order (an object's keys and values alternate).
@usableFromInline
struct TapeChildren {
    @usableFromInline let tape: UnsafePointer<JSONToken>
    @usableFromInline let bytes: UnsafePointer<UInt8>
    @usableFromInline var cursor: Int
    @usableFromInline let end: Int

    /// The children of `container` if it is of `kind`; none otherwise.
    @inlinable
    init(of container: UnsafeJSONValue, kind: JSONKind) {
        let token = container.token
        tape = container.tape
        bytes = container.bytes
        cursor = container.index + 1
        end = token.kind == kind ? Int(token.end) : container.index + 1
    }

    /// The next child; a container is stepped over whole.
    @inlinable
    mutating func next() -> UnsafeJSONValue? {
        guard cursor < end else { return nil }
        let child = UnsafeJSONValue(tape: tape, bytes: bytes, index: cursor)
        let token = tape[cursor]
        cursor = token.kind == .object || token.kind == .array ? Int(token.end) : cursor + 1
        return child
    }
}
