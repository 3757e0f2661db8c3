import CSQLite

/// A storage failure: SQLite's result code and message, and the SQL (never the bound values).
public enum StorageError: Error, Hashable, Sendable, CustomStringConvertible {
    /// SQLite answered an error.
    case sqlite(code: Int32, message: String, sql: String?)
    /// A pragma did not take the value asked for (e.g. WAL mode refused).
    case unexpectedSetting(pragma: String, value: String)
    /// A subscription is linked to another user and the restore behaviour refuses to move it.
    case receiptAlreadyInUse(environment: String, originalTransactionId: String, userId: String)

    public var description: String {
        switch self {
        case .sqlite(let code, let message, let sql):
            "SQLite error \(code): \(message)" + (sql.map { " (in \($0))" } ?? "")
        case .unexpectedSetting(let pragma, let value): "PRAGMA \(pragma) answered '\(value)'"
        case .receiptAlreadyInUse(let environment, let original, _):
            "subscription \(original) (\(environment)) is already linked to another user"
        }
    }
}
