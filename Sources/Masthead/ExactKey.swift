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
    @inlinable
    public func sameBytes(as other: String) -> Bool {
        guard utf8.count == other.utf8.count else { return false }
        // Compared as contiguous bytes: a dictionary of ids compares keys on every lookup, and
        // stepping both UTF-8 views through their iterators cost several times as much.
        var left = self
        var right = other
        return left.withUTF8 { left in
            right.withUTF8 { right in
                for index in 0..<left.count where left[index] != right[index] { return false }
                return true
            }
        }
    }

    /// Whether this identifier's bytes come before `other`'s (unsigned bytes, a prefix first).
    @inlinable
    public func precedesInBytes(_ other: String) -> Bool {
        utf8.lexicographicallyPrecedes(other.utf8)
    }
}
