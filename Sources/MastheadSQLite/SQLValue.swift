/// A value bound to a statement parameter, or read from a column by ``Row/value(_:)``.
public enum SQLValue: Hashable, Sendable {
    /// SQL NULL.
    case null
    /// A 64-bit integer (booleans and instants are stored as integers).
    case integer(Int64)
    /// UTF-8 text, bound with its byte length.
    case text(String)
    /// Bytes, stored as they are (a body kept for forensics, which need not be UTF-8).
    case blob([UInt8])

    /// Text, or NULL for nil.
    public static func optional(_ text: String?) -> SQLValue { text.map { .text($0) } ?? .null }

    /// An integer, or NULL for nil.
    public static func optional(_ number: Int64?) -> SQLValue { number.map { .integer($0) } ?? .null }

    /// A boolean, as the integer 1 or 0 (read back by ``Row/bool(_:)``).
    public static func bool(_ flag: Bool) -> SQLValue { .integer(flag ? 1 : 0) }

    /// A boolean as 1 or 0, or NULL for nil.
    public static func optional(_ flag: Bool?) -> SQLValue { flag.map(bool) ?? .null }
}
