/// A failure of SQLite or of reading what it answered: each case names the SQL, never a bound value.
public enum SQLiteError: Error, Hashable, Sendable, CustomStringConvertible {
    /// SQLite answered an error result code (extended), with its message.
    case failed(code: Int32, message: String, sql: String?)
    /// A pragma did not take the value asked for (e.g. WAL mode refused).
    case unexpectedSetting(pragma: String, value: String)
    /// A statement that always answers a row (an aggregate) answered none.
    case noRow(sql: String)
    /// A column was read as a type it does not hold, e.g. NULL read as text.
    /// - `expected` and `found` are SQLite's storage classes (`NULL`, `INTEGER`, `REAL`, `TEXT`, `BLOB`).
    case columnType(column: String, expected: String, found: String, sql: String)
    /// A column holds a value of the right type that is not one of those its reader knows
    /// (e.g. `2` read as a boolean, or an unknown environment name).
    case columnValue(column: String, value: String, expected: String, sql: String)
    /// The database file cannot be created because its folder does not exist.
    case missingFolder(path: String, folder: String)

    public var description: String {
        switch self {
        case .failed(let code, let message, let sql):
            "SQLite error \(code): \(message)" + (sql.map { " (in \($0))" } ?? "")
        case .unexpectedSetting(let pragma, let value): "PRAGMA \(pragma) answered '\(value)'"
        case .noRow(let sql): "no row answered (in \(sql))"
        case .columnType(let column, let expected, let found, let sql):
            "column \(column) holds \(found) where \(expected) was expected (in \(sql))"
        case .columnValue(let column, let value, let expected, let sql):
            "column \(column) holds '\(value)', not \(expected) (in \(sql))"
        case .missingFolder(let path, let folder): "cannot create \(path): the folder \(folder) does not exist"
        }
    }
}
