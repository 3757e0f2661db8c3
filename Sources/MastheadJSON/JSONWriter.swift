/// Writes compact JSON into a byte buffer, placing commas and escaping strings (RFC 8259 §7).
///
/// Calls must nest properly: `beginObject()`, then alternately `key(_:)` and a value, then
/// `endObject()`. The writer is a value; take `bytes` when done.
public struct JSONWriter: Sendable {
    /// The text written so far.
    public private(set) var bytes: [UInt8] = []
    /// One entry per open container: whether a value has been written in it yet.
    private var needsComma: [Bool] = []
    private var afterKey = false

    /// Creates an empty writer.
    public init(capacity: Int = 256) { bytes.reserveCapacity(capacity) }

    /// Empties the buffer, keeping its capacity, to write another document.
    public mutating func reset() {
        bytes.removeAll(keepingCapacity: true)
        needsComma.removeAll(keepingCapacity: true)
        afterKey = false
    }

    /// The text written so far, as a string.
    public var text: String { String(decoding: bytes, as: UTF8.self) }

    private mutating func separate() {
        if afterKey {
            afterKey = false
            return
        }
        if let last = needsComma.last {
            if last { bytes.append(UInt8(ascii: ",")) }
            needsComma[needsComma.count - 1] = true
        }
    }

    /// Opens an object.
    public mutating func beginObject() { open("{") }

    /// Closes the innermost object.
    public mutating func endObject() { close("}") }

    /// Opens an array.
    public mutating func beginArray() { open("[") }

    /// Closes the innermost array.
    public mutating func endArray() { close("]") }

    /// Opens an object or an array with `bracket`: its first member or element takes no comma.
    private mutating func open(_ bracket: Unicode.Scalar) {
        separate()
        bytes.append(UInt8(ascii: bracket))
        needsComma.append(false)
    }

    /// Closes the innermost object or array with `bracket`.
    private mutating func close(_ bracket: Unicode.Scalar) {
        needsComma.removeLast()
        bytes.append(UInt8(ascii: bracket))
    }

    /// Ends a line: separates documents in JSON Lines output.
    public mutating func newline() { bytes.append(0x0A) }

    /// Writes an object key; the next call writes its value.
    public mutating func key(_ name: String) {
        separate()
        appendQuoted(name)
        bytes.append(UInt8(ascii: ":"))
        afterKey = true
    }

    /// Writes a string value.
    public mutating func string(_ value: String) {
        separate()
        appendQuoted(value)
    }

    /// Writes an integer value.
    public mutating func int(_ value: Int64) {
        separate()
        bytes.append(contentsOf: String(value).utf8)
    }

    /// Writes a boolean value.
    public mutating func bool(_ value: Bool) {
        separate()
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    /// Writes `null`.
    public mutating func null() {
        separate()
        bytes.append(contentsOf: "null".utf8)
    }

    /// Writes a string value, or `null` when `value` is nil.
    public mutating func optionalString(_ value: String?) {
        if let value { string(value) } else { null() }
    }

    /// Writes `"name": value` for a string.
    public mutating func field(_ name: String, _ value: String) {
        key(name)
        string(value)
    }

    /// Writes `"name": value` for an integer.
    public mutating func field(_ name: String, _ value: Int64) {
        key(name)
        int(value)
    }

    /// Writes `"name": value` for a boolean.
    public mutating func field(_ name: String, _ value: Bool) {
        key(name)
        bool(value)
    }

    /// Writes `"name": value`, or `"name": null` when `value` is nil.
    public mutating func field(_ name: String, _ value: String?) {
        key(name)
        optionalString(value)
    }

    /// Writes `"name":` and the value `writeValue` writes, or `"name": null` when `value` is nil.
    public mutating func member<Value>(_ name: String, _ value: Value?, _ writeValue: (inout JSONWriter, Value) -> Void) {
        key(name)
        if let value { writeValue(&self, value) } else { null() }
    }

    /// Writes `"name": [...]`, each of `elements` written by `writeElement`.
    public mutating func array<Elements: Sequence>(_ name: String, _ elements: Elements, _ writeElement: (inout JSONWriter, Elements.Element) -> Void) {
        key(name)
        beginArray()
        for element in elements { writeElement(&self, element) }
        endArray()
    }

    private mutating func appendQuoted(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            // Most strings need no escape: copy them whole.
            if !utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
                bytes.append(contentsOf: utf8)
                return
            }
            for byte in utf8 { appendEscaped(byte) }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func appendEscaped(_ byte: UInt8) {
        switch byte {
        case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
        case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
        case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
        case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
        case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
        case ..<0x20:
            let digits = Array("0123456789abcdef".utf8)
            bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
        default: bytes.append(byte)
        }
    }
}
