/// A value bound to a query parameter, or read from a column by ``PostgreSQLRow/value(_:)``.
public enum PostgreSQLValue: Hashable, Sendable {
    /// SQL NULL.
    case null
    /// A 64-bit integer (`bigint`).
    case integer(Int64)
    /// UTF-8 text (`text`), which may not hold a NUL character.
    case text(String)
    /// Bytes (`bytea`), sent in binary.
    case bytes([UInt8])
    /// A boolean (`boolean`).
    case bool(Bool)

    /// Text, or NULL for nil.
    public static func optional(_ text: String?) -> PostgreSQLValue { text.map { .text($0) } ?? .null }

    /// An integer, or NULL for nil.
    public static func optional(_ number: Int64?) -> PostgreSQLValue { number.map { .integer($0) } ?? .null }

    /// A boolean, or NULL for nil.
    public static func optional(_ flag: Bool?) -> PostgreSQLValue { flag.map { .bool($0) } ?? .null }
}
