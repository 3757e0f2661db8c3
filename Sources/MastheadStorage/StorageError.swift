public import MastheadSQLite

/// A store failure: the database's, or the store's policy refusing a write.
public enum StorageError: Error, Hashable, Sendable, CustomStringConvertible, SQLiteErrorConvertible {
    /// SQLite failed, or a row did not hold what the schema says (the SQLite store).
    case sqlite(SQLiteError)
    /// A subscription is linked to another user and the restore behaviour refuses to move it.
    case receiptAlreadyInUse(environment: String, originalTransactionId: String, userId: String)
    /// The store was closed: it takes no more writes.
    case closed

    public init(sqlite error: SQLiteError) { self = .sqlite(error) }

    public var description: String {
        switch self {
        case .sqlite(let error): "\(error)"
        case .receiptAlreadyInUse(let environment, let original, _):
            "subscription \(original) (\(environment)) is already linked to another user"
        case .closed: "the store is closed"
        }
    }
}
