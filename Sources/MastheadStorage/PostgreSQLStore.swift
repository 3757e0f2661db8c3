public import MastheadPostgreSQL

/// The service's store in PostgreSQL: one connection, the schema's migrations applied when it
/// opens for writing (under an advisory lock, so instances starting together apply them once).
///
/// It keeps what ``SQLiteStore`` keeps with the same behaviour (see the MastheadStorage article
/// "Two backends" for what differs). This file holds PostgreSQL's primitives
/// (``StorePrimitives``); the store's algorithms are written once for every backend. Reads
/// outside a transaction run in autocommit, each seeing
/// every commit made before it; ``readSnapshot(_:)`` is a `REPEATABLE READ READ ONLY` transaction.
/// Change-log entries are numbered consecutively in commit order: ``recordChanges(_:origin:)``
/// locks the log until its transaction ends.
///
/// Every transaction that writes the change log notifies ``changesChannel`` as it commits;
/// ``commitCounter()`` counts those notifications on a connection of its own, so other instances
/// know without a query that someone committed.
public final class PostgreSQLStore: StorePrimitives {
    /// The connection.
    public let connection: PostgreSQLConnection
    /// How many rejected notifications ``recordRejectedNotification(kind:reason:body:now:)`` keeps.
    public var rejectedNotificationRetention = RejectedNotificationRetention.standard
    /// The channel every change-log write notifies (`pg_notify`) when its transaction commits.
    public static let changesChannel = "masthead_changes"
    /// The connection string, for the listening connection of ``commitCounter()``.
    let url: String
    /// Whether the session refuses writes (`default_transaction_read_only`), set again after a reconnection.
    let readOnly: Bool
    /// How many of this store's transactions and snapshots are open: the connection is made
    /// again, when the server closed it, only between them, never inside one.
    var openTransactions = 0
    /// Whether the database has `user_histories` (always once migrated; a read-only store on a
    /// database of an earlier schema reads every history from the tables).
    public let storesHistories: Bool

    /// Connects to the database at `url` and, unless `readOnly`, applies the migrations it has not seen.
    /// - Parameters:
    ///   - url: a libpq connection string, a `postgresql://user@host:port/database` URL.
    ///   - readOnly: apply nothing, and refuse writes in this session (`default_transaction_read_only`).
    public init(url: String, readOnly: Bool = false) throws(StorageError) {
        self.url = url
        self.readOnly = readOnly
        do {
            connection = try PostgreSQLConnection(url)
            if readOnly {
                try connection.execute("SET default_transaction_read_only = on")
                storesHistories =
                    try connection.scalar("SELECT count(*) FROM pg_catalog.pg_tables WHERE schemaname = current_schema() AND tablename = 'user_histories'")
                    == .integer(1)
            } else {
                try PostgreSQLSchema.migrator.migrate(connection)
                storesHistories = true
            }
        } catch {
            throw .postgreSQL(error)
        }
    }

    /// Runs `body`, PostgreSQL's errors (a row not as the schema says included) thrown as ``StorageError/postgreSQL(_:)``.
    @discardableResult
    func postgreSQL<R>(_ body: () throws(PostgreSQLError) -> R) throws(StorageError) -> R {
        do {
            if openTransactions == 0 { try reconnectIfClosed() }
            return try body()
        } catch {
            throw .postgreSQL(error)
        }
    }

    /// Counts one of this store's transactions or snapshots as open (the caller counts it closed
    /// with `defer { openTransactions -= 1 }`), connecting again first when the server closed the
    /// connection and none is open.
    func opening() throws(StorageError) {
        if openTransactions == 0 { try postgreSQL { () throws(PostgreSQLError) in try reconnectIfClosed() } }
        openTransactions += 1
    }

    /// Connects again when the server closed the connection since the last statement (a restart,
    /// a failover, an administrator ending the session). The statement that met the closed
    /// connection failed, and its transaction with it: nothing of it was applied or acknowledged.
    func reconnectIfClosed() throws(PostgreSQLError) {
        guard !connection.isConnected else { return }
        try connection.reconnect()
        if readOnly { try connection.execute("SET default_transaction_read_only = on") }
    }

    // MARK: Primitives

    public static var dialect: SQLDialect { .postgreSQL }

    /// A statement's text: the connection prepares it on the server the first time it runs it
    /// (per text and parameter types) and then executes it by name.
    public struct Statement: Sendable {
        /// The statement's text.
        public let sql: String
    }

    public func prepare(_ sql: String) -> Statement {
        Statement(sql: sql)
    }

    @discardableResult
    public func run(_ statement: Statement, _ values: [PostgreSQLValue]) throws(StorageError) -> Int {
        try postgreSQL { () throws(PostgreSQLError) in try connection.run(statement.sql, values) }
    }

    public func rows<T>(_ statement: Statement, _ values: [PostgreSQLValue], _ read: (PostgreSQLRow) throws(PostgreSQLError) -> T) throws(StorageError) -> [T] {
        try postgreSQL { () throws(PostgreSQLError) in try connection.rows(statement.sql, values, read) }
    }

    public func firstRow<T>(_ statement: Statement, _ values: [PostgreSQLValue], _ read: (PostgreSQLRow) throws(PostgreSQLError) -> T) throws(StorageError) -> T? {
        try postgreSQL { () throws(PostgreSQLError) in try connection.firstRow(statement.sql, values, read) }
    }

    /// A table lock lasts until the transaction ends, so a write that takes one needs a transaction.
    public func inWrite<R>(_ body: () throws(StorageError) -> R) throws(StorageError) -> R {
        if openTransactions == 0 { try postgreSQL { () throws(PostgreSQLError) in try reconnectIfClosed() } }
        if connection.isIdle { return try inTransaction(body) }
        return try body()
    }

    public func inSnapshot<R>(_ body: () throws(StorageError) -> R) throws(StorageError) -> R {
        try opening()
        defer { openTransactions -= 1 }
        return try connection.readSnapshot(body)
    }

    /// `LOCK TABLE … IN SHARE ROW EXCLUSIVE MODE`: other writers of the table wait until this
    /// transaction ends, readers go on.
    public func lockForNumbering(_ table: String) throws(StorageError) {
        try postgreSQL { () throws(PostgreSQLError) in try connection.execute("LOCK TABLE \(table) IN SHARE ROW EXCLUSIVE MODE") }
    }

    /// Notifies ``changesChannel`` with the writer's origin: PostgreSQL delivers it when the
    /// transaction commits (once per transaction and origin), never when it rolls back.
    public func announceChanges(origin: Int64) throws(StorageError) {
        try run("SELECT pg_notify($1, $2)", [.text(PostgreSQLStore.changesChannel), .text(String(origin))])
    }

    // MARK: Transactions

    public func inTransaction<R>(_ body: () throws(StorageError) -> R) throws(StorageError) -> R {
        try opening()
        defer { openTransactions -= 1 }
        return try connection.inTransaction(body)
    }

    public func inSavepoint<R, E: Error>(_ body: () throws(E) -> R) throws(StorageError) -> Result<R, E> {
        try postgreSQL { () throws(PostgreSQLError) in try connection.inSavepoint(body) }
    }

    public func readSnapshot<R>(_ body: () throws -> R) throws -> R {
        try opening()
        defer { openTransactions -= 1 }
        return try connection.readSnapshot(body)
    }

    /// Nothing: PostgreSQL's server keeps its own write-ahead log.
    public func checkpoint() throws(StorageError) {}

    /// A new connection listening on ``changesChannel``, counting the notifications of committed
    /// change-log writes (nil while it is down; it reconnects on its own). It closes when released.
    public func commitCounter() throws(StorageError) -> StoreCommitCounter? {
        NotificationCommitCounter(
            listener: try postgreSQL { () throws(PostgreSQLError) in try PostgreSQLListener(url: url, channel: PostgreSQLStore.changesChannel) })
    }
}
