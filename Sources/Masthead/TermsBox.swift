/// Terms held behind one reference, so that a transaction or renewal info that carries them grows
/// by a pointer, and one that does not costs nothing more to copy. Immutable: a change makes a new box.
final class TermsBox<Terms: Hashable & Sendable>: Hashable, Sendable {
    let terms: Terms

    init(_ terms: Terms) { self.terms = terms }

    static func == (lhs: TermsBox, rhs: TermsBox) -> Bool { lhs === rhs || lhs.terms == rhs.terms }

    func hash(into hasher: inout Hasher) { hasher.combine(terms) }
}

/// Optional terms kept behind one reference (a private box), so that a transaction, renewal info
/// or status that carries them grows by a pointer, and one that does not costs nothing more to
/// copy. Values compare and hash by their terms.
@propertyWrapper
public struct Boxed<Terms: Hashable & Sendable>: Hashable, Sendable {
    private var box: TermsBox<Terms>?

    /// Boxes `wrappedValue`, when there is one.
    public init(wrappedValue: Terms?) { box = wrappedValue.map(TermsBox.init) }

    /// The terms; setting them makes a new box.
    public var wrappedValue: Terms? {
        get { box?.terms }
        set { box = newValue.map(TermsBox.init) }
    }
}

/// The bytes that stand for a value of terms, field by field, so that terms compare, hash and
/// order by the exact bytes of their texts (two Unicode spellings are two values) and the order
/// is total: each field is a tag (0 absent, 1 present) and its bytes; a text ends with 0xFF,
/// which never occurs in UTF-8, so no text's bytes are a prefix of another's; a number is 8
/// bytes, big-endian with its sign bit flipped, so that byte order is numeric order; a part
/// (a commitment) is its own fields.
struct TermsBytes {
    private(set) var bytes: [UInt8] = []

    /// The bytes of `fields`, in order.
    static func of<each Field: TermsField>(_ fields: repeat each Field) -> [UInt8] {
        var bytes = TermsBytes()
        bytes.add(repeat each fields)
        return bytes.bytes
    }

    /// Adds `fields`, in order.
    mutating func add<each Field: TermsField>(_ fields: repeat each Field) {
        for field in repeat each fields { field.add(to: &self) }
    }

    fileprivate mutating func append(_ byte: UInt8) { bytes.append(byte) }

    fileprivate mutating func append(contentsOf more: some Sequence<UInt8>) { bytes.append(contentsOf: more) }
}

/// A field of terms, as ``TermsBytes`` writes it.
protocol TermsField {
    func add(to bytes: inout TermsBytes)
}

/// What a field holds when it is present: written after the tag 1.
protocol TermsFieldValue {
    func addValue(to bytes: inout TermsBytes)
}

extension Optional: TermsField where Wrapped: TermsFieldValue {
    func add(to bytes: inout TermsBytes) {
        guard let self else { return bytes.append(0) }
        bytes.append(1)
        self.addValue(to: &bytes)
    }
}

extension String: TermsFieldValue {
    func addValue(to bytes: inout TermsBytes) {
        bytes.append(contentsOf: utf8)
        bytes.append(0xFF)
    }
}

extension Int64: TermsFieldValue {
    func addValue(to bytes: inout TermsBytes) {
        let flipped = UInt64(bitPattern: self) ^ (1 << 63)
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: flipped >> UInt64(shift))) }
    }
}

extension Int32: TermsFieldValue {
    func addValue(to bytes: inout TermsBytes) { Int64(self).addValue(to: &bytes) }
}

extension Instant: TermsFieldValue {
    func addValue(to bytes: inout TermsBytes) { milliseconds.addValue(to: &bytes) }
}

extension Array: TermsFieldValue where Element == String {
    func addValue(to bytes: inout TermsBytes) {
        for text in self { Optional(text).add(to: &bytes) }
        // 2 ends the list: it follows a text's 0xFF or starts where a next text's 1 would.
        bytes.append(2)
    }
}

/// A part of terms (a commitment) is its own fields.
extension TermsFieldValue where Self: ExactBytesRepresentable {
    func addValue(to bytes: inout TermsBytes) { bytes.append(contentsOf: exactBytes) }
}

/// An offer is its three fields, always there (each may be absent).
extension TermsOffer: TermsField {
    func add(to bytes: inout TermsBytes) { bytes.add(type, identifier, period) }
}
