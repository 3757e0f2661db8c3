/// What a backend provides so that the store's algorithms, written once in this protocol's
/// extensions, run on it: statements with parameters, rows with typed columns, transactions, a
/// read snapshot, the locks that number rows consecutively, and its dialect.
///
/// ``SQLiteStore`` and ``PostgreSQLStore`` conform, each in one file; everything
/// ``EntitlementStore`` asks beyond these requirements (merging and upserting transactions and
/// renewal history, linking under the restore behaviour, the change log, app account tokens,
/// receipt-only subscriptions, notifications, row mapping) is implemented once, generic over
/// the conforming type, so the compiler specialises it for each backend and row loops make no
/// dynamic calls.
///
/// Statements are written with `$1`, `$2`… parameters (see ``SQLDialect``); a backend prepares
/// each text once per connection and keeps it.
public protocol StorePrimitives: EntitlementStore {
    /// A statement parameter.
    associatedtype Value: StoreValue
    /// A result row.
    associatedtype Row: StoreRow

    /// How this backend spells what differs between SQL dialects.
    static var dialect: SQLDialect { get }

    /// How many rejected notifications ``StoreWriter/recordRejectedNotification(kind:reason:body:now:)`` keeps.
    var rejectedNotificationRetention: RejectedNotificationRetention { get }

    /// Whether the database has the `user_histories` table ``history(forUser:)`` reads first.
    var storesHistories: Bool { get }

    /// A statement prepared once per connection: preparing the same text again gives it back.
    associatedtype Prepared

    /// The statement for `sql`, prepared the first time this connection sees the text.
    func prepare(_ sql: String) throws(StorageError) -> Prepared

    /// Runs a statement that answers no rows (or whose rows are not read); returns how many rows
    /// it inserted, updated or deleted.
    @discardableResult
    func run(_ statement: Prepared, _ values: [Value]) throws(StorageError) -> Int

    /// Every row of a query, each read by `read`.
    func rows<T>(_ statement: Prepared, _ values: [Value], _ read: (Row) throws(Row.Failure) -> T) throws(StorageError) -> [T]

    /// The first row of a query read by `read`, or nil when it answers none.
    func firstRow<T>(_ statement: Prepared, _ values: [Value], _ read: (Row) throws(Row.Failure) -> T) throws(StorageError) -> T?

    /// Runs `body` in the caller's write transaction, or in one of its own when none is open, so
    /// that its statements and the locks they take end together.
    func inWrite<R>(_ body: () throws(StorageError) -> R) throws(StorageError) -> R

    /// Runs `body` so that its reads see one snapshot (inside the caller's transaction when one is open).
    func inSnapshot<R>(_ body: () throws(StorageError) -> R) throws(StorageError) -> R

    /// Locks `table` against other writers until the transaction ends (readers go on), so that
    /// the newest id plus one is free and ids are consecutive in commit order; nothing where one
    /// writer holds the whole database.
    func lockForNumbering(_ table: String) throws(StorageError)

    /// Tells other connections, when the transaction commits, that `origin` wrote the change log
    /// (what their commit counters count); nothing where the counter counts commits itself.
    func announceChanges(origin: Int64) throws(StorageError)
}

/// Statements by their text, for statements run once per call; a loop prepares its statements
/// before it starts (``StorePrimitives/prepare(_:)``), so that no row looks up its text again.
extension StorePrimitives {
    /// Runs the statement `sql`; returns how many rows it inserted, updated or deleted.
    @discardableResult
    public func run(_ sql: String, _ values: [Value]) throws(StorageError) -> Int {
        try run(prepare(sql), values)
    }

    /// Every row of the query `sql`, each read by `read`.
    public func rows<T>(_ sql: String, _ values: [Value], _ read: (Row) throws(Row.Failure) -> T) throws(StorageError) -> [T] {
        try rows(prepare(sql), values, read)
    }

    /// The first row of the query `sql` read by `read`, or nil when it answers none.
    public func firstRow<T>(_ sql: String, _ values: [Value], _ read: (Row) throws(Row.Failure) -> T) throws(StorageError) -> T? {
        try firstRow(prepare(sql), values, read)
    }
}
