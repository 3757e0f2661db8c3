import MastheadPostgreSQL

/// Where the service's store lives, as the `database` setting gives it: a `postgresql://` (or
/// `postgres://`) URL names a PostgreSQL database, anything else is a SQLite file's path.
///
/// libpq's `key=value` form is not accepted here (it could be a file's name): its keywords go in
/// the URL's query (`postgresql://ana@db/masthead?sslmode=require`).
public enum StoreLocation: Hashable, Sendable, CustomStringConvertible {
    /// A SQLite database file.
    case sqlite(path: String)
    /// A PostgreSQL database, by libpq URL.
    case postgreSQL(url: String)

    /// The location the setting's text names.
    public init(_ text: String) {
        self = PostgreSQLConnection.isURL(text) ? .postgreSQL(url: text) : .sqlite(path: text)
    }

    /// The location as messages name it: the path, or the URL without its password.
    public var description: String {
        switch self {
        case .sqlite(let path): path
        case .postgreSQL(let url): PostgreSQLConnection.redacted(url)
        }
    }

    /// Opens a store there (a new connection), applying the migrations it has not seen unless `readOnly`.
    public func open(readOnly: Bool = false) throws(StorageError) -> any EntitlementStore {
        switch self {
        case .sqlite(let path): try SQLiteStore(path: path, readOnly: readOnly)
        case .postgreSQL(let url): try PostgreSQLStore(url: url, readOnly: readOnly)
        }
    }
}
