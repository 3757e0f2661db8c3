package import MastheadSQL

/// An error type that can carry a ``SQLiteError``, so that `Database.inTransaction(_:)` and
/// `Database.readSnapshot(_:)` can throw their body's own error type
/// when SQLite fails to begin or end the transaction.
public protocol SQLiteErrorConvertible: Error {
    /// The error for SQLite's failure.
    init(sqlite error: SQLiteError)
}

extension SQLiteError: SQLiteErrorConvertible {
    public init(sqlite error: SQLiteError) { self = error }
}

extension AnyBodyError: SQLiteErrorConvertible {
    package init(sqlite error: SQLiteError) { self.init(error) }
}
