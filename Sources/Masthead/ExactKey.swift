/// An identifier (of a user, publication, issue, product, transaction or grant) as its exact
/// UTF-8 bytes: the key of every dictionary and set of ids.
///
/// Swift's `String` equality and hashing follow Unicode canonical equivalence, so `"café"` written
/// precomposed (`caf\u{E9}`) and decomposed (`cafe\u{301}`) are one `String`; the store (SQLite
/// and PostgreSQL compare text by its bytes) and Apple keep them apart. An `ExactKey` compares,
/// hashes and orders the bytes, so two spellings are always two ids.
public struct ExactKey: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The identifier.
    public let text: String

    /// The identifier `text`, compared by its bytes.
    public init(_ text: String) { self.text = text }

    public var description: String { text }

    public static func == (lhs: ExactKey, rhs: ExactKey) -> Bool { lhs.text.sameBytes(as: rhs.text) }

    /// Orders by the bytes of the UTF-8, as SQLite and PostgreSQL's `C` collation order text.
    public static func < (lhs: ExactKey, rhs: ExactKey) -> Bool { lhs.text.precedesInBytes(rhs.text) }

    public func hash(into hasher: inout Hasher) {
        var text = self.text
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        // 0xFF never occurs in UTF-8: ends the bytes, so that no key's bytes are a prefix of another's.
        hasher.combine(UInt8(0xFF))
    }
}

extension String {
    /// Whether this identifier and `other` are the same bytes (not merely canonically
    /// equivalent, as `==` tells): how every id is compared.
    /// Compares the contiguous bytes in place (every native or small string has them); a generic
    /// walk of the two UTF-8 views costs several times as much.
    @inlinable
    public func sameBytes(as other: String) -> Bool {
        let compared = utf8.withContiguousStorageIfAvailable { bytes in
            other.utf8.withContiguousStorageIfAvailable { otherBytes in String.equalBytes(bytes, otherBytes) }
        }
        if let compared, let compared { return compared }
        return utf8.count == other.utf8.count && utf8.elementsEqual(other.utf8)
    }

    /// Whether two buffers hold the same bytes, compared eight at a time.
    @inlinable
    static func equalBytes(_ lhs: UnsafeBufferPointer<UInt8>, _ rhs: UnsafeBufferPointer<UInt8>) -> Bool {
        let count = lhs.count
        guard count == rhs.count else { return false }
        guard count > 0, let left = lhs.baseAddress, let right = rhs.baseAddress, left != right else { return true }
        let leftRaw = UnsafeRawPointer(left)
        let rightRaw = UnsafeRawPointer(right)
        var offset = 0
        while offset + 8 <= count {
            guard leftRaw.loadUnaligned(fromByteOffset: offset, as: UInt64.self) == rightRaw.loadUnaligned(fromByteOffset: offset, as: UInt64.self) else {
                return false
            }
            offset += 8
        }
        while offset < count {
            guard left[offset] == right[offset] else { return false }
            offset += 1
        }
        return true
    }

    /// Whether this identifier's bytes come before `other`'s (unsigned bytes, a prefix first).
    @inlinable
    public func precedesInBytes(_ other: String) -> Bool {
        let compared = utf8.withContiguousStorageIfAvailable { bytes in
            other.utf8.withContiguousStorageIfAvailable { otherBytes in bytes.lexicographicallyPrecedes(otherBytes) }
        }
        if let compared, let compared { return compared }
        return utf8.lexicographicallyPrecedes(other.utf8)
    }
}
