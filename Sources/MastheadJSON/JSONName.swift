/// A member name prepared once for comparing against many keys: its length and the eight-byte
/// words that cover it, so that a comparison is two or three integer compares.
public struct JSONName: Sendable {
    /// The name.
    public let text: StaticString
    @usableFromInline let length: Int
    @usableFromInline let first: UInt64
    @usableFromInline let middle: UInt64
    @usableFromInline let last: UInt64

    /// Prepares `text`. Names of 8 to 24 bytes compare word-wise; others byte-wise.
    public init(_ text: StaticString) {
        self.text = text
        length = text.utf8CodeUnitCount
        let bytes = UnsafeRawPointer(text.utf8Start)
        let wordWise = length >= 8 && length <= 24
        first = wordWise ? bytes.loadUnaligned(as: UInt64.self) : 0
        middle = wordWise && length > 16 ? bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self) : 0
        last = wordWise ? bytes.loadUnaligned(fromByteOffset: length - 8, as: UInt64.self) : 0
    }
}

extension UnsafeJSONKey {
    /// Whether the key equals `name`: the first and last eight bytes (and the middle eight for
    /// names over 16 bytes) cover the whole name.
    @inlinable
    package static func == (key: UnsafeJSONKey, name: JSONName) -> Bool {
        guard !key.hasEscapes, name.length >= 8, name.length <= 24 else { return key == name.text }
        guard key.length == name.length else { return false }
        let bytes = UnsafeRawPointer(key.start)
        guard bytes.loadUnaligned(as: UInt64.self) == name.first,
            bytes.loadUnaligned(fromByteOffset: name.length - 8, as: UInt64.self) == name.last
        else { return false }
        return name.length <= 16 || bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self) == name.middle
    }
}
