public import MastheadPostgreSQL
public import MastheadSQLite

/// A statement parameter as a backend binds it: the store's algorithms build their parameters
/// through these requirements, so each backend keeps its own value type and no array is converted.
public protocol StoreValue {
    /// SQL NULL.
    static var null: Self { get }
    /// A 64-bit integer.
    static func integer(_ number: Int64) -> Self
    /// UTF-8 text.
    static func text(_ text: String) -> Self
    /// A flag, as the backend stores one.
    static func bool(_ flag: Bool) -> Self
    /// Bytes.
    static func bytes(_ bytes: [UInt8]) -> Self
    /// Text, or NULL for nil.
    static func optional(_ text: String?) -> Self
    /// An integer, or NULL for nil.
    static func optional(_ number: Int64?) -> Self
    /// A flag, or NULL for nil.
    static func optional(_ flag: Bool?) -> Self
}

/// SQLite's values: a flag is the integer 0 or 1, bytes a blob.
extension SQLValue: StoreValue {
    public static func bytes(_ bytes: [UInt8]) -> SQLValue { .blob(bytes) }
}

/// PostgreSQL's values: a flag is a `boolean`, bytes a `bytea`.
extension PostgreSQLValue: StoreValue {}
