package import MastheadSQL

/// A failure of PostgreSQL, of reaching it, or of reading what it answered: each case names the
/// SQL, never a bound value, and a connection's target never with its password.
public enum PostgreSQLError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The connection could not be made or was lost: the target (its password removed) and libpq's message.
    case connection(target: String, message: String)
    /// The server answered an error: its SQLSTATE (`23505`, `40001` …) and message.
    case failed(sqlState: String, message: String, sql: String)
    /// A text parameter holds a NUL character, which PostgreSQL's text cannot (1-based `parameter`).
    case textWithNUL(parameter: Int, sql: String)
    /// A statement that always answers a row (an aggregate) answered none.
    case noRow(sql: String)
    /// A column was read as a type it does not hold, e.g. NULL read as text; `expected` and
    /// `found` are PostgreSQL type names.
    case columnType(column: String, expected: String, found: String, sql: String)
    /// A column holds a value of the right type that is not one of those its reader knows.
    case columnValue(column: String, value: String, expected: String, sql: String)

    /// The SQLSTATE of a server error, nil for the other cases.
    public var sqlState: String? {
        if case .failed(let state, _, _) = self { return state }
        return nil
    }

    public var description: String {
        switch self {
        case .connection(let target, let message): "cannot use PostgreSQL at \(target): \(message)"
        case .failed(let state, let message, let sql): "PostgreSQL error \(state): \(message) (in \(sql))"
        case .textWithNUL(let parameter, let sql): "text parameter $\(parameter) holds a NUL character, which PostgreSQL text cannot store (in \(sql))"
        case .noRow(let sql): "no row answered (in \(sql))"
        case .columnType(let column, let expected, let found, let sql): "column \(column) holds \(found) where \(expected) was expected (in \(sql))"
        case .columnValue(let column, let value, let expected, let sql): "column \(column) holds '\(value)', not \(expected) (in \(sql))"
        }
    }
}

/// An error type that can carry a ``PostgreSQLError``, so that the transaction closures of
/// ``PostgreSQLConnection`` can throw their body's own error type when PostgreSQL fails to begin
/// or end the transaction.
public protocol PostgreSQLErrorConvertible: Error {
    /// The error for PostgreSQL's failure.
    init(postgreSQL error: PostgreSQLError)
}

extension PostgreSQLError: PostgreSQLErrorConvertible {
    public init(postgreSQL error: PostgreSQLError) { self = error }
}

extension AnyBodyError: PostgreSQLErrorConvertible {
    package init(postgreSQL error: PostgreSQLError) { self.init(error) }
}
