/// A value inside a parsed ``JSONDocument``: a position on its tape, read on demand.
///
/// Reading costs nothing until asked: `string` decodes one string, `int64` reads one number,
/// `member(_:)` walks one object's keys comparing bytes, never building a dictionary. The value
/// keeps its document alive; a decoder reading many fields can use ``withUnsafeValue(_:)``
/// instead, which reads the same tape without reference counting.
public struct JSONValue: Sendable {
    let storage: JSONStorage
    let index: Int

    init(storage: JSONStorage, index: Int) {
        self.storage = storage
        self.index = index
    }

    /// The same value without ownership; valid while `self` is in use (within one method).
    private var node: UnsafeJSONValue { UnsafeJSONValue(tape: storage.tape, bytes: storage.bytes, index: index) }

    /// Calls `body` with this value read through plain pointers; the document stays alive until
    /// `body` returns, and the ``UnsafeJSONValue`` must not escape it.
    package func withUnsafeValue<R, E: Error>(_ body: (UnsafeJSONValue) throws(E) -> R) throws(E) -> R {
        try withExtendedLifetime(storage) { () throws(E) -> R in try body(node) }
    }

    /// The kind of value.
    public var kind: JSONKind { node.kind }

    /// Whether the value is `null`.
    public var isNull: Bool { node.isNull }

    /// The line (from 1) on which the value starts, for error messages.
    public var line: Int { node.line }

    // MARK: Scalars

    /// The decoded text of a string value; `nil` for any other kind.
    public var string: String? { node.string }

    /// A boolean value; `nil` for any other kind.
    public var bool: Bool? { node.bool }

    /// The source text of a number (as written, e.g. `1.5e3`); `nil` for any other kind.
    public var numberText: String? { node.numberText }

    /// An integer number that fits in `Int64`, written without fraction or exponent; else `nil`.
    public var int64: Int64? { node.int64 }

    /// A number as a `Double`; `nil` for any other kind or when out of `Double`'s range.
    public var double: Double? { node.double }

    /// Calls `body` with the raw UTF-8 bytes between a string's quotes (escapes not decoded),
    /// or of a number's text; `nil` for other kinds.
    public func withRawBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R? {
        guard let bytes = node.rawBytes else { return nil }
        return try body(bytes)
    }

    /// Calls `body` with the UTF-8 bytes of a string value, unescaped (copied only when the value
    /// has escapes); nil for any other kind.
    public func withStringBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R? {
        try node.withStringBytes(body)
    }

    /// Whether the value is a string whose decoded text equals `text`.
    public func stringEquals(_ text: StaticString) -> Bool { node.stringEquals(text) }

    // MARK: Containers

    /// The number of members of an object or elements of an array; 0 for scalars.
    public var count: Int { node.count }

    /// The value of an object's member `key` (names are unique: ``JSONDocument``); `nil` when absent or not an object.
    public func member(_ key: StaticString) -> JSONValue? {
        node.member(key).map { JSONValue(storage: storage, index: $0.index) }
    }

    /// The value of an object's member `key` (names are unique: ``JSONDocument``); `nil` when absent or not an object.
    public subscript(key: String) -> JSONValue? {
        node[key].map { JSONValue(storage: storage, index: $0.index) }
    }

    /// An object's members in document order; empty for other kinds.
    public var members: JSONMembers { JSONMembers(storage: storage, members: node.members) }

    /// An array's elements in document order; empty for other kinds.
    public var elements: JSONElements { JSONElements(storage: storage, elements: node.elements) }

    // MARK: Decoding helpers

    @usableFromInline
    static func equal(_ bytes: UnsafeBufferPointer<UInt8>, _ text: StaticString) -> Bool {
        let length = text.utf8CodeUnitCount
        guard bytes.count == length else { return false }
        guard length > 0, let base = bytes.baseAddress else { return true }
        let left = UnsafeRawPointer(base)
        let right = UnsafeRawPointer(text.utf8Start)
        guard length >= 4 else {
            for offset in 0..<length where left.load(fromByteOffset: offset, as: UInt8.self) != right.load(fromByteOffset: offset, as: UInt8.self) {
                return false
            }
            return true
        }
        guard length >= 8 else {
            // Two four-byte words, overlapping when the length is under eight.
            return left.loadUnaligned(as: UInt32.self) == right.loadUnaligned(as: UInt32.self)
                && left.loadUnaligned(fromByteOffset: length - 4, as: UInt32.self) == right.loadUnaligned(fromByteOffset: length - 4, as: UInt32.self)
        }
        var offset = 0
        while offset + 8 < length {
            if left.loadUnaligned(fromByteOffset: offset, as: UInt64.self) != right.loadUnaligned(fromByteOffset: offset, as: UInt64.self) { return false }
            offset += 8
        }
        // The last eight bytes, overlapping the previous word when the length is not a multiple of eight.
        return left.loadUnaligned(fromByteOffset: length - 8, as: UInt64.self) == right.loadUnaligned(fromByteOffset: length - 8, as: UInt64.self)
    }

    static func parseInt64(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        var offset = 0
        let negative = bytes.first == UInt8(ascii: "-")
        if negative { offset = 1 }
        guard offset < bytes.count else { return nil }
        var value: Int64 = 0
        if bytes.count - offset <= 18 {
            // Eighteen digits cannot overflow. Eight at a time while eight remain (a date's
            // milliseconds are thirteen), then one by one.
            while bytes.count - offset >= 8 {
                let word = UInt64(littleEndian: UnsafeRawPointer(bytes.baseAddress! + offset).loadUnaligned(as: UInt64.self))
                guard let eight = eightDigits(word) else { return nil }
                value = value &* 100_000_000 &+ Int64(eight)
                offset += 8
            }
            while offset < bytes.count {
                let digit = bytes[offset] &- UInt8(ascii: "0")
                guard digit < 10 else { return nil }
                value = value &* 10 &+ Int64(digit)
                offset += 1
            }
            return negative ? -value : value
        }
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

    /// The number eight ASCII digits spell, loaded as a little-endian word (the first digit in
    /// the lowest byte); nil when a byte is not a digit.
    @inline(__always)
    static func eightDigits(_ word: UInt64) -> UInt64? {
        let highNibbles: UInt64 = 0xF0F0_F0F0_F0F0_F0F0
        let zeros: UInt64 = 0x3030_3030_3030_3030
        // Every byte 0x30–0x39: its high nibble is 3, and adding 6 to its low nibble does not carry.
        guard word & highNibbles == zeros, (word &+ 0x0606_0606_0606_0606) & highNibbles == zeros else { return nil }
        var value = word &- zeros
        // Pairs of digits, then fours, then all eight: each step multiplies the higher-order half
        // of a lane and adds the lower-order half, in lanes that cannot overflow.
        value = (value &* 10 &+ (value >> 8)) & 0x00FF_00FF_00FF_00FF
        value = (value &* 100 &+ (value >> 16)) & 0x0000_FFFF_0000_FFFF
        return (value &* 10_000 &+ (value >> 32)) & 0xFFFF_FFFF
    }

    /// Decodes a validated string body with escapes into a `String`.
    @usableFromInline
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

    private var unsafeKey: UnsafeJSONKey { UnsafeJSONKey(start: storage.bytes + start, length: length, hasEscapes: hasEscapes) }

    /// The decoded key.
    public var string: String { unsafeKey.string }

    /// The decoded key's length in UTF-8 bytes: a cheap first test before comparing names.
    public var utf8Count: Int { unsafeKey.utf8Count }

    /// Whether the key equals `name`.
    public static func == (key: JSONKey, name: StaticString) -> Bool { key.unsafeKey == name }
}

/// The members of a JSON object, in document order.
public struct JSONMembers: Sequence, IteratorProtocol, Sendable {
    let storage: JSONStorage
    fileprivate nonisolated(unsafe) var members: UnsafeJSONMembers

    /// The next member.
    public mutating func next() -> (key: JSONKey, value: JSONValue)? {
        guard let (key, value) = withExtendedLifetime(storage, { members.next() }) else { return nil }
        return (
            JSONKey(storage: storage, start: key.start - UnsafePointer(storage.bytes), length: key.length, hasEscapes: key.hasEscapes),
            JSONValue(storage: storage, index: value.index)
        )
    }
}

/// The elements of a JSON array, in document order.
public struct JSONElements: Sequence, IteratorProtocol, Sendable {
    let storage: JSONStorage
    fileprivate nonisolated(unsafe) var elements: UnsafeJSONElements

    /// The next element.
    public mutating func next() -> JSONValue? {
        withExtendedLifetime(storage) { elements.next() }.map { JSONValue(storage: storage, index: $0.index) }
    }
}
