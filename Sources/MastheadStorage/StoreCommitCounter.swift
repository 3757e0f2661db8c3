public import MastheadPostgreSQL
public import MastheadSQLite

/// A count that moves whenever anyone commits to the store, read without a query: SQLite's
/// shared-memory commit counter, or the count of PostgreSQL's notifications of change-log writes.
///
/// An enum of the two concrete types rather than a protocol: it is read before every answer from
/// the service's cache, the download check's included.
public enum StoreCommitCounter: Sendable {
    /// SQLite's count of commits to the WAL file (`CommitCounter`).
    case sqlite(CommitCounter)
    /// The notifications on ``PostgreSQLStore/changesChannel``, counted by a listening connection.
    case notifications(PostgreSQLListener)

    /// The current count (compare it for equality only), or nil when it cannot be told (the
    /// listening connection is down): the change log must then be read.
    public var value: UInt32? {
        switch self {
        case .sqlite(let counter): counter.value
        case .notifications(let listener): listener.count
        }
    }

    /// Whether the listening connection is up; nil for SQLite's counter, which needs none.
    public var isListening: Bool? {
        switch self {
        case .sqlite: nil
        case .notifications(let listener): listener.count != nil
        }
    }
}
