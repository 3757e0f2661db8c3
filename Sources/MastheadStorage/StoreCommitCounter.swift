import MastheadPostgreSQL
import MastheadSQLite

/// A count that moves whenever anyone commits to the store, read without a query (SQLite's
/// shared-memory commit counter, or the count of PostgreSQL's notifications of change-log
/// writes); ``StoreReader/commitCounter()`` gives one as a ``StoreCommitCounter``.
///
/// The service reads it before every answer from its cache, the download check's included: a
/// backend's counter is a load or two behind one indirect call.
public protocol CommitCounting: Sendable {
    /// The current count (compare it for equality only), or nil when it cannot be told (a
    /// listening connection is down): the change log must then be read.
    var value: UInt32? { get }
    /// Whether the connection it listens on is up; nil for a counter that needs none.
    var isListening: Bool? { get }
}

/// A store's commit counter, whichever backend's.
public typealias StoreCommitCounter = any CommitCounting

/// SQLite's count of commits to the WAL file (`CommitCounter`): it needs no connection.
struct SQLiteCommitCounter: CommitCounting {
    let counter: CommitCounter
    var value: UInt32? { counter.value }
    var isListening: Bool? { nil }
}

/// The notifications on ``PostgreSQLStore/changesChannel``, counted by a listening connection.
struct NotificationCommitCounter: CommitCounting {
    let listener: PostgreSQLListener
    var value: UInt32? { listener.count }
    var isListening: Bool? { listener.count != nil }
}
