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

/// Carries any error through the typed transaction APIs, for their untyped forms.
struct AnyBodyError: SQLiteErrorConvertible {
    let error: any Error

    init(_ error: any Error) { self.error = error }

    init(sqlite error: SQLiteError) { self.error = error }
}
