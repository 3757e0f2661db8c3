/// Terms held behind one reference, so that a transaction or renewal info that carries them grows
/// by a pointer, and one that does not costs nothing more to copy. Immutable: a change makes a new box.
final class TermsBox<Terms: Hashable & Sendable>: Hashable, Sendable {
    let terms: Terms

    init(_ terms: Terms) { self.terms = terms }

    static func == (lhs: TermsBox, rhs: TermsBox) -> Bool { lhs === rhs || lhs.terms == rhs.terms }

    func hash(into hasher: inout Hasher) { hasher.combine(terms) }
}

/// The bytes that stand for a value of terms, field by field, so that terms compare, hash and
/// order by the exact bytes of their texts (two Unicode spellings are two values) and the order
/// is total: each field is a tag (0 absent, 1 present) and its bytes; a text ends with 0xFF,
/// which never occurs in UTF-8, so no text's bytes are a prefix of another's; a number is 8
/// bytes, big-endian with its sign bit flipped, so that byte order is numeric order.
struct TermsBytes {
    private(set) var bytes: [UInt8] = []

    mutating func add(_ text: String?) {
        guard let text else { return bytes.append(0) }
        bytes.append(1)
        bytes.append(contentsOf: text.utf8)
        bytes.append(0xFF)
    }

    mutating func add(_ number: Int64?) {
        guard let number else { return bytes.append(0) }
        bytes.append(1)
        let flipped = UInt64(bitPattern: number) ^ (1 << 63)
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: flipped >> UInt64(shift))) }
    }

    mutating func add(_ number: Int32?) { add(number.map(Int64.init)) }

    mutating func add(_ instant: Instant?) { add(instant?.milliseconds) }

    mutating func add(_ texts: [String]?) {
        guard let texts else { return bytes.append(0) }
        bytes.append(1)
        for text in texts { add(text) }
        // 2 ends the list: it follows a text's 0xFF or starts where a next text's 1 would.
        bytes.append(2)
    }
}
