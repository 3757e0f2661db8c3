public import MastheadSQLite

/// The service's store in SQLite (WAL, `synchronous = FULL`): one connection, with its
/// statements compiled once and the schema's migrations applied when it opens for writing.
///
/// Each method runs its statements on this connection; wrap several in ``inTransaction(_:)`` to
/// commit them together. No statement stays active after a method returns, so a connection used
/// only for reading holds no snapshot between calls: it sees every commit made before each call,
/// and checkpoints can restart the WAL.
///
/// This file holds SQLite's primitives (``StorePrimitives``); the store's algorithms are written
/// once for every backend. One writer holds the database at a time (`BEGIN IMMEDIATE`), so a
/// read-then-write needs no row lock and rows are numbered by their rowid's successor.
///
/// The change log (``recordChanges(_:origin:)``, ``changes(after:notFrom:)``) tells every process
/// using the file what the others' commits changed; ``commitCounter()`` tells without a query
/// whether anyone committed.
public final class SQLiteStore: StorePrimitives {
    /// The connection.
    public let database: Database
    /// How many rejected notifications ``recordRejectedNotification(kind:reason:body:now:)`` keeps.
    public var rejectedNotificationRetention = RejectedNotificationRetention.standard
    private var statements: [String: Statement] = [:]
    /// Whether the database has `user_histories` (always once migrated; a read-only store on a
    /// database of an earlier schema reads every history from the tables).
    public let storesHistories: Bool

    /// Opens the database at `path` and, unless `readOnly`, applies the migrations it has not seen.
    /// - Parameters:
    ///   - path: the database file, created when missing (unless `readOnly`).
    ///   - readOnly: open without write access, beside a running service (the file must exist).
    public init(path: String, readOnly: Bool = false) throws(StorageError) {
        do {
            database = try Database(path: path, readOnly: readOnly)
            if readOnly {
                storesHistories = try database.scalar("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'user_histories'") == .integer(1)
            } else {
                try SQLiteSchema.migrator.migrate(database)
                storesHistories = true
            }
        } catch {
            throw .sqlite(error)
        }
    }

    /// The prepared statement for `sql` (its parameters written `$N`), compiled once per connection.
    func statement(_ sql: String) throws(SQLiteError) -> Statement {
        if let cached = statements[sql] { return cached }
        let prepared = try database.prepare(SQLDialect.questionMarkParameters(sql))
        statements[sql] = prepared
        return prepared
    }

    /// Runs `body`, SQLite's errors (a row not as the schema says included) thrown as ``StorageError/sqlite(_:)``.
    func sqlite<R>(_ body: () throws(SQLiteError) -> R) throws(StorageError) -> R {
        do { return try body() } catch { throw .sqlite(error) }
    }

    // MARK: Primitives

    public static var dialect: SQLDialect { .sqlite }

    public func prepare(_ sql: String) throws(StorageError) -> Statement {
        try sqlite { () throws(SQLiteError) in try statement(sql) }
    }

    @discardableResult
    public func run(_ statement: Statement, _ values: [SQLValue]) throws(StorageError) -> Int {
        try sqlite { () throws(SQLiteError) in
            try statement.run(values)
            return database.changes
        }
    }

    public func rows<T>(_ statement: Statement, _ values: [SQLValue], _ read: (Row) throws(SQLiteError) -> T) throws(StorageError) -> [T] {
        try sqlite { () throws(SQLiteError) in try statement.rows(values, read) }
    }

    public func firstRow<T>(_ statement: Statement, _ values: [SQLValue], _ read: (Row) throws(SQLiteError) -> T) throws(StorageError) -> T? {
        try sqlite { () throws(SQLiteError) in try statement.firstRow(values, read) }
    }

    public func inWrite<R>(_ body: () throws(StorageError) -> R) throws(StorageError) -> R {
        if database.isAutocommit { return try database.inTransaction(body) }
        return try body()
    }

    public func inSnapshot<R>(_ body: () throws(StorageError) -> R) throws(StorageError) -> R {
        try database.readSnapshot { (_: borrowing ReadSnapshot) throws(StorageError) -> R in try body() }
    }

    /// Nothing: the write transaction (`BEGIN IMMEDIATE`) excludes every other writer already.
    public func lockForNumbering(_ table: String) throws(StorageError) {}

    /// Nothing: SQLite's commit counter counts every commit to the file.
    public func announceChanges(origin: Int64) throws(StorageError) {}

    // MARK: Transactions

    public func inTransaction<R>(_ body: () throws(StorageError) -> R) throws(StorageError) -> R {
        try database.inTransaction(body)
    }

    public func inSavepoint<R, E: Error>(_ body: () throws(E) -> R) throws(StorageError) -> Result<R, E> {
        try sqlite { () throws(SQLiteError) in try database.inSavepoint(body) }
    }

    public func readSnapshot<R>(_ body: () throws -> R) throws -> R {
        try database.readSnapshot { _ in try body() }
    }

    public func checkpoint() throws(StorageError) {
        try sqlite { () throws(SQLiteError) in try database.checkpointTruncating() }
    }

    /// SQLite's count of commits by any connection to the file (`Database.commitCounter()`).
    public func commitCounter() throws(StorageError) -> StoreCommitCounter? {
        try sqlite { () throws(SQLiteError) in try database.commitCounter() }.map(SQLiteCommitCounter.init(counter:))
    }
}
