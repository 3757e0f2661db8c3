import CSQLite

/// The current result row of a statement, readable only inside the closure it is given to.
///
/// Each column is read as the type it holds: reading one as another (NULL as text, text as an
/// integer, `2` as a boolean) throws an error naming the column and the SQL, rather than letting
/// SQLite convert the value or the caller substitute a default.
public struct Row {
    let handle: OpaquePointer

    /// Column `index` (from 0), which must hold text: every byte of it (read with its length, so
    /// a NUL does not end it).
    public func text(_ index: Int32) throws(SQLiteError) -> String {
        try require(index, SQLITE_TEXT)
        return try textValue(index)
    }

    /// Column `index` as text, or nil for NULL.
    public func optionalText(_ index: Int32) throws(SQLiteError) -> String? {
        try require(index, SQLITE_TEXT, orNull: true) ? try textValue(index) : nil
    }

    /// Column `index`, which must hold an integer.
    public func integer(_ index: Int32) throws(SQLiteError) -> Int64 {
        try require(index, SQLITE_INTEGER)
        return sqlite3_column_int64(handle, index)
    }

    /// Column `index` as an integer, or nil for NULL.
    public func optionalInteger(_ index: Int32) throws(SQLiteError) -> Int64? {
        try require(index, SQLITE_INTEGER, orNull: true) ? sqlite3_column_int64(handle, index) : nil
    }

    /// Column `index`, which must hold the integer 0 (false) or 1 (true).
    public func bool(_ index: Int32) throws(SQLiteError) -> Bool {
        try boolValue(index, try integer(index))
    }

    /// Column `index` as a boolean (0 or 1), or nil for NULL.
    public func optionalBool(_ index: Int32) throws(SQLiteError) -> Bool? {
        guard let number = try optionalInteger(index) else { return nil }
        return try boolValue(index, number)
    }

    /// Column `index`, which must hold a blob: its bytes.
    public func blob(_ index: Int32) throws(SQLiteError) -> [UInt8] {
        try require(index, SQLITE_BLOB)
        return try blobValue(index)
    }

    /// Column `index` as a blob's bytes, or nil for NULL.
    public func optionalBlob(_ index: Int32) throws(SQLiteError) -> [UInt8]? {
        try require(index, SQLITE_BLOB, orNull: true) ? try blobValue(index) : nil
    }

    /// Column `index` as the value it holds, which must be NULL, an integer, text or a blob.
    public func value(_ index: Int32) throws(SQLiteError) -> SQLValue {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_NULL: return .null
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, index))
        case SQLITE_TEXT: return .text(try textValue(index))
        case SQLITE_BLOB: return .blob(try blobValue(index))
        default: throw SQLiteError.columnType(column: columnName(index), expected: "NULL, INTEGER, TEXT or BLOB", found: storageClass(index), sql: sql)
        }
    }

    /// The name of column `index` as the statement gives it (its `AS` name, or SQLite's).
    public func columnName(_ index: Int32) -> String {
        sqlite3_column_name(handle, index).map { String(cString: $0) } ?? "#\(index)"
    }

    /// The SQL of the statement the row comes from.
    public var sql: String { sqlite3_sql(handle).map { String(cString: $0) } ?? "" }

    /// Checks that column `index` holds `type` (or NULL, when `orNull`); answers whether it is not NULL.
    @discardableResult
    private func require(_ index: Int32, _ type: Int32, orNull: Bool = false) throws(SQLiteError) -> Bool {
        let found = sqlite3_column_type(handle, index)
        if found == type { return true }
        if orNull && found == SQLITE_NULL { return false }
        throw SQLiteError.columnType(column: columnName(index), expected: Row.names[Int(type)], found: storageClass(index), sql: sql)
    }

    /// The text of column `index`, which holds text (nil from SQLite then means it ran out of memory).
    private func textValue(_ index: Int32) throws(SQLiteError) -> String {
        guard let pointer = sqlite3_column_text(handle, index) else {
            let database = sqlite3_db_handle(handle)
            throw SQLiteError.failed(code: sqlite3_extended_errcode(database), message: String(cString: sqlite3_errmsg(database)), sql: sql)
        }
        let count = Int(sqlite3_column_bytes(handle, index))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    /// The bytes of column `index`, which holds a blob (SQLite answers nil for an empty one, and
    /// when it ran out of memory).
    private func blobValue(_ index: Int32) throws(SQLiteError) -> [UInt8] {
        let pointer = sqlite3_column_blob(handle, index)
        let count = Int(sqlite3_column_bytes(handle, index))
        if count == 0 { return [] }
        guard let pointer else {
            let database = sqlite3_db_handle(handle)
            throw SQLiteError.failed(code: sqlite3_extended_errcode(database), message: String(cString: sqlite3_errmsg(database)), sql: sql)
        }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    private func boolValue(_ index: Int32, _ number: Int64) throws(SQLiteError) -> Bool {
        switch number {
        case 0: return false
        case 1: return true
        default: throw SQLiteError.columnValue(column: columnName(index), value: "\(number)", expected: "0 or 1 (a boolean)", sql: sql)
        }
    }

    private func storageClass(_ index: Int32) -> String { Row.names[Int(sqlite3_column_type(handle, index))] }

    /// SQLite's storage class names, indexed by its type codes (`SQLITE_INTEGER` = 1 … `SQLITE_NULL` = 5).
    private static let names = ["?", "INTEGER", "REAL", "TEXT", "BLOB", "NULL"]
}
