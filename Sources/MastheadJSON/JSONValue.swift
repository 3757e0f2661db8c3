/// A value inside a parsed ``JSONDocument``: a position on its tape, read on demand.
///
/// Reading costs nothing until asked: `string` decodes one string, `int64` reads one number,
/// `member(_:)` walks one object's keys comparing bytes, never building a dictionary.
public struct JSONValue: Sendable {
    let storage: JSONStorage
    let index: Int

    init(storage: JSONStorage, index: Int) {
        self.storage = storage
        self.index = index
    }

    var token: JSONToken { storage.tape[index] }

    /// The kind of value.
    public var kind: JSONKind { token.kind }

    /// Whether the value is `null`.
    public var isNull: Bool { token.kind == .null }

    /// The line (from 1) on which the value starts, for error messages.
    public var line: Int {
        let start = Int(token.kind == .string ? token.start - 1 : token.start)
        var line = 1
        storage.withBytes { bytes in
            for offset in 0..<start where bytes[offset] == 0x0A { line += 1 }
        }
        return line
    }

    // MARK: Scalars

    /// The decoded text of a string value; `nil` for any other kind.
    public var string: String? {
        let token = token
        guard token.kind == .string else { return nil }
        return storage.withBytes { bytes in
            let text = UnsafeBufferPointer(rebasing: bytes[Int(token.start)..<Int(token.end)])
            return token.hasEscapes ? JSONValue.unescape(text) : String(decoding: text, as: UTF8.self)
        }
    }

    /// A boolean value; `nil` for any other kind.
    public var bool: Bool? {
        switch token.kind {
        case .true: true
        case .false: false
        default: nil
        }
    }

    /// The source text of a number (as written, e.g. `1.5e3`); `nil` for any other kind.
    public var numberText: String? {
        let token = token
        guard token.kind == .number else { return nil }
        return storage.withBytes { String(decoding: UnsafeBufferPointer(rebasing: $0[Int(token.start)..<Int(token.end)]), as: UTF8.self) }
    }

    /// An integer number that fits in `Int64`, written without fraction or exponent; else `nil`.
    public var int64: Int64? {
        let token = token
        guard token.kind == .number else { return nil }
        return storage.withBytes { bytes in
            JSONValue.parseInt64(UnsafeBufferPointer(rebasing: bytes[Int(token.start)..<Int(token.end)]))
        }
    }

    /// A number as a `Double`; `nil` for any other kind or when out of `Double`'s range.
    public var double: Double? {
        guard let text = numberText, let value = Double(text), value.isFinite else { return nil }
        return value
    }

    /// Calls `body` with the raw UTF-8 bytes between a string's quotes (escapes not decoded),
    /// or of a number's text; `nil` for other kinds.
    public func withRawBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R? {
        let token = token
        guard token.kind == .string || token.kind == .number else { return nil }
        return try storage.withBytes { bytes in
            try body(UnsafeBufferPointer(rebasing: bytes[Int(token.start)..<Int(token.end)]))
        }
    }

    /// Calls `body` with the UTF-8 bytes of a string value, unescaped (copied only when the value
    /// has escapes); nil for any other kind.
    public func withStringBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R? {
        let token = token
        guard token.kind == .string else { return nil }
        if token.hasEscapes {
            var text = string ?? ""
            return try text.withUTF8(body)
        }
        return try storage.withBytes { bytes in
            try body(UnsafeBufferPointer(rebasing: bytes[Int(token.start)..<Int(token.end)]))
        }
    }

    /// Whether the value is a string without escapes whose bytes equal `text`.
    public func stringEquals(_ text: StaticString) -> Bool {
        let token = token
        guard token.kind == .string else { return false }
        if token.hasEscapes { return string == text.description }
        return storage.withBytes { bytes in
            JSONValue.equal(UnsafeBufferPointer(rebasing: bytes[Int(token.start)..<Int(token.end)]), text)
        }
    }

    // MARK: Containers

    /// The number of members of an object or elements of an array; 0 for scalars.
    public var count: Int {
        switch token.kind {
        case .object: members.reduce(0) { total, _ in total + 1 }
        case .array: elements.reduce(0) { total, _ in total + 1 }
        default: 0
        }
    }

    /// The value of an object's member `key` (the first, if repeated); `nil` when absent or not an object.
    public func member(_ key: StaticString) -> JSONValue? {
        guard token.kind == .object else { return nil }
        for (name, value) in members where name == key { return value }
        return nil
    }

    /// The value of an object's member `key` (the first, if repeated); `nil` when absent or not an object.
    public subscript(key: String) -> JSONValue? {
        guard token.kind == .object else { return nil }
        for (name, value) in members where name.string == key { return value }
        return nil
    }

    /// An object's members in document order; empty for other kinds.
    public var members: JSONMembers { JSONMembers(storage: storage, index: index) }

    /// An array's elements in document order; empty for other kinds.
    public var elements: JSONElements { JSONElements(storage: storage, index: index) }

    var containerEnd: Int {
        let token = token
        return token.kind == .object || token.kind == .array ? Int(token.end) : index + 1
    }

    @inline(__always)
    static func next(after cursor: Int, in tape: [JSONToken]) -> Int {
        let token = tape[cursor]
        return token.kind == .object || token.kind == .array ? Int(token.end) : cursor + 1
    }

    // MARK: Decoding helpers

    static func equal(_ bytes: UnsafeBufferPointer<UInt8>, _ text: StaticString) -> Bool {
        let length = text.utf8CodeUnitCount
        guard bytes.count == length else { return false }
        guard length > 0, let base = bytes.baseAddress else { return true }
        let left = UnsafeRawPointer(base)
        let right = UnsafeRawPointer(text.utf8Start)
        var offset = 0
        while offset + 8 <= length {
            if left.loadUnaligned(fromByteOffset: offset, as: UInt64.self) != right.loadUnaligned(fromByteOffset: offset, as: UInt64.self) { return false }
            offset += 8
        }
        while offset < length {
            if left.load(fromByteOffset: offset, as: UInt8.self) != right.load(fromByteOffset: offset, as: UInt8.self) { return false }
            offset += 1
        }
        return true
    }

    static func parseInt64(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        var offset = 0
        let negative = bytes.first == UInt8(ascii: "-")
        if negative { offset = 1 }
        guard offset < bytes.count else { return nil }
        var value: Int64 = 0
        while offset < bytes.count {
            let digit = bytes[offset] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = negative ? times.subtractingReportingOverflow(Int64(digit)) : times.addingReportingOverflow(Int64(digit))
            guard !overflow1 && !overflow2 else { return nil }
            value = sum
            offset += 1
        }
        return value
    }

    /// Decodes a validated string body with escapes into a `String`.
    static func unescape(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var offset = 0
        while offset < bytes.count {
            let byte = bytes[offset]
            guard byte == UInt8(ascii: "\\") else {
                output.append(byte)
                offset += 1
                continue
            }
            let escape = bytes[offset + 1]
            offset += 2
            switch escape {
            case UInt8(ascii: "b"): output.append(0x08)
            case UInt8(ascii: "f"): output.append(0x0C)
            case UInt8(ascii: "n"): output.append(0x0A)
            case UInt8(ascii: "r"): output.append(0x0D)
            case UInt8(ascii: "t"): output.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = UInt32(hexValue(bytes, at: offset))
                offset += 4
                if scalar >= 0xD800 && scalar <= 0xDBFF {
                    // The parser guarantees a low surrogate escape follows.
                    let low = UInt32(hexValue(bytes, at: offset + 2))
                    offset += 6
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
                appendUTF8(scalar, to: &output)
            default: output.append(escape)
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func hexValue(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) -> UInt16 {
        var value: UInt16 = 0
        for index in offset..<offset + 4 {
            let byte = bytes[index]
            let digit: UInt8 =
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
                default: byte - UInt8(ascii: "A") + 10
                }
            value = value << 4 | UInt16(digit)
        }
        return value
    }

    private static func appendUTF8(_ scalar: UInt32, to output: inout [UInt8]) {
        switch scalar {
        case ..<0x80:
            output.append(UInt8(scalar))
        case ..<0x800:
            output.append(UInt8(0xC0 | scalar >> 6))
            output.append(UInt8(0x80 | scalar & 0x3F))
        case ..<0x10000:
            output.append(UInt8(0xE0 | scalar >> 12))
            output.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            output.append(UInt8(0x80 | scalar & 0x3F))
        default:
            output.append(UInt8(0xF0 | scalar >> 18))
            output.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            output.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            output.append(UInt8(0x80 | scalar & 0x3F))
        }
    }
}

/// An object member's key, compared in place against expected names.
///
/// Comparing costs a length check for most names, and a byte comparison only when lengths match.
public struct JSONKey: Sendable {
    let storage: JSONStorage
    let start: Int
    let length: Int
    let hasEscapes: Bool

    init(storage: JSONStorage, token: JSONToken) {
        self.storage = storage
        start = Int(token.start)
        length = Int(token.end - token.start)
        hasEscapes = token.hasEscapes
    }

    /// The decoded key.
    public var string: String {
        storage.withBytes { bytes in
            let text = UnsafeBufferPointer(rebasing: bytes[start..<start + length])
            return hasEscapes ? JSONValue.unescape(text) : String(decoding: text, as: UTF8.self)
        }
    }

    /// The decoded key's length in UTF-8 bytes: a cheap first test before comparing names.
    public var utf8Count: Int { hasEscapes ? string.utf8.count : length }

    /// Whether the key equals `name`.
    public static func == (key: JSONKey, name: StaticString) -> Bool {
        if key.hasEscapes { return key.string == name.description }
        guard key.length == name.utf8CodeUnitCount else { return false }
        return key.storage.withBytes { bytes in
            JSONValue.equal(UnsafeBufferPointer(rebasing: bytes[key.start..<key.start + key.length]), name)
        }
    }
}

/// The members of a JSON object, in document order.
public struct JSONMembers: Sequence, Sendable {
    let storage: JSONStorage
    let index: Int

    public func makeIterator() -> Iterator {
        let token = storage.tape[index]
        let isObject = token.kind == .object
        return Iterator(storage: storage, cursor: index + 1, end: isObject ? Int(token.end) : index + 1)
    }

    /// Steps through an object's members.
    public struct Iterator: IteratorProtocol {
        let storage: JSONStorage
        var cursor: Int
        let end: Int

        public mutating func next() -> (key: JSONKey, value: JSONValue)? {
            guard cursor < end else { return nil }
            let tape = storage.tape
            let key = JSONKey(storage: storage, token: tape[cursor])
            let value = JSONValue(storage: storage, index: cursor + 1)
            cursor = JSONValue.next(after: cursor + 1, in: tape)
            return (key, value)
        }
    }
}

/// The elements of a JSON array, in document order.
public struct JSONElements: Sequence, Sendable {
    let storage: JSONStorage
    let index: Int

    public func makeIterator() -> Iterator {
        let token = storage.tape[index]
        let isArray = token.kind == .array
        return Iterator(storage: storage, cursor: index + 1, end: isArray ? Int(token.end) : index + 1)
    }

    /// Steps through an array's elements.
    public struct Iterator: IteratorProtocol {
        let storage: JSONStorage
        var cursor: Int
        let end: Int

        public mutating func next() -> JSONValue? {
            guard cursor < end else { return nil }
            let value = JSONValue(storage: storage, index: cursor)
            cursor = JSONValue.next(after: cursor, in: storage.tape)
            return value
        }
    }
}
