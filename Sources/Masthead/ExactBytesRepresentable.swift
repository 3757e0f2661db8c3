/// A value that compares and hashes by the exact bytes that stand for it, so that two Unicode
/// spellings of a text in it are two values; one that is `Comparable` orders by those bytes too
/// (a total order). Offer and billing terms are such values.
public protocol ExactBytesRepresentable: Hashable {
    /// The bytes that stand for the value, field by field (absent fields first in the order).
    var exactBytes: [UInt8] { get }
}

extension ExactBytesRepresentable {
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.exactBytes == rhs.exactBytes }

    public func hash(into hasher: inout Hasher) { hasher.combine(exactBytes) }
}

extension ExactBytesRepresentable where Self: Comparable {
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.exactBytes.lexicographicallyPrecedes(rhs.exactBytes) }
}
