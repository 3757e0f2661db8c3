import CSQLite
import Glibc

/// One SQLite connection, owned by one thread at a time.
///
/// A file it creates is readable by its owner only (0600), and so are the `-wal` and `-shm` files
/// SQLite makes beside it (SQLite gives them the database file's permissions).
///
/// Opened with `sqlite3_open_v2` (closed even when opening fails), extended result codes, a busy
/// timeout, WAL journal (checked: the pragma must answer `wal`), `synchronous = FULL`, so a
/// committed transaction survives power loss, and foreign keys enforced. Not `Sendable`: give
/// each thread its own.
public final class Database {
    let handle: OpaquePointer
    /// The file the connection is open on.
    public let path: String

    /// Opens (creating if needed, mode 0600) the database at `path`.
    /// - Parameters:
    ///   - path: the database file; its folder must exist (``SQLiteError/missingFolder(path:folder:)``).
    ///   - readOnly: open without write access (for readers beside a running writer); the file
    ///     must exist, and its journal mode is left as it is.
    ///   - busyTimeoutMilliseconds: how long a statement waits for another connection's lock
    ///     before failing with `SQLITE_BUSY`.
    public init(path: String, readOnly: Bool = false, busyTimeoutMilliseconds: Int32 = 5000) throws(SQLiteError) {
        self.path = path
        if !readOnly { try Database.createPrivately(path) }
        var pointer: OpaquePointer?
        let flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) | SQLITE_OPEN_NOMUTEX
        let result = sqlite3_open_v2(path, &pointer, flags, nil)
        guard result == SQLITE_OK, let pointer else {
            let message = pointer.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close_v2(pointer)
            throw SQLiteError.failed(code: result, message: "\(message): \(path)", sql: nil)
        }
        handle = pointer
        sqlite3_extended_result_codes(handle, 1)
        sqlite3_busy_timeout(handle, busyTimeoutMilliseconds)
        if !readOnly {
            let mode = try prepare("PRAGMA journal_mode = WAL").firstRow([]) { row throws(SQLiteError) in try row.text(0) }
            guard mode?.lowercased() == "wal" else { throw SQLiteError.unexpectedSetting(pragma: "journal_mode", value: mode ?? "no answer") }
            try execute("PRAGMA synchronous = FULL")
            Database.keepWALSmall(handle, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
        }
        try execute("PRAGMA foreign_keys = ON")
    }

    deinit { sqlite3_close_v2(handle) }

    /// Creates the file at `path`, empty and readable by its owner only, when it does not exist
    /// (SQLite would create it with the process's umask); leaves an existing file as it is.
    /// In-memory and temporary databases (`:memory:`, an empty path) and URIs are left to SQLite.
    private static func createPrivately(_ path: String) throws(SQLiteError) {
        guard !path.isEmpty, path != ":memory:", !path.hasPrefix("file:") else { return }
        let descriptor = Glibc.open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        if descriptor >= 0 {
            Glibc.close(descriptor)
            return
        }
        let code = errno
        if code == ENOENT {
            let folder = path.contains("/") ? String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)]) : "."
            throw SQLiteError.missingFolder(path: path, folder: folder.isEmpty ? "/" : folder)
        }
        // Anything else (a read-only folder, a permission) is reported by SQLite's own open.
    }

    /// Copies every page of the write-ahead log into the database file and truncates the log
    /// to nothing (`wal_checkpoint(TRUNCATE)`), so the database file alone holds every commit:
    /// a copy of it is a complete backup. Waits up to the busy timeout for readers.
    /// - Throws: ``SQLiteError/failed(code:message:sql:)`` when a reader kept the log busy
    ///   (`SQLITE_BUSY`) or the checkpoint failed.
    public func checkpointTruncating() throws(SQLiteError) {
        let result = sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_TRUNCATE, nil, nil)
        guard result == SQLITE_OK else { throw error(result, sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
    }

    /// Pages of WAL after which a commit checkpoints (SQLite's own auto-checkpoint size).
    public static let checkpointPages: Int32 = 1000
    /// Pages of WAL after which a commit checkpoints and truncates the WAL file, waiting briefly for readers.
    public static let truncatePages: Int32 = 4 * checkpointPages
    /// How long that truncating checkpoint waits for readers to move to the newest snapshot.
    static let truncateWaitMilliseconds: Int32 = 50

    /// Replaces SQLite's auto-checkpoint with one that cannot be starved: past ``checkpointPages``
    /// a commit checkpoints as SQLite would (PASSIVE); past ``truncatePages`` — readers kept
    /// overlapping every commit, so the WAL could never restart — it checkpoints with `TRUNCATE`,
    /// waiting up to ``truncateWaitMilliseconds`` for the readers (they hold snapshots for
    /// microseconds), and the file shrinks back to nothing. A long reader (an audit's snapshot)
    /// makes it give up at once after that wait, and a later commit tries again.
    private static func keepWALSmall(_ handle: OpaquePointer, busyTimeoutMilliseconds: Int32) {
        let hook: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafePointer<CChar>?, Int32) -> Int32 = { context, db, name, pages in
            if pages >= Database.truncatePages {
                sqlite3_busy_timeout(db, Database.truncateWaitMilliseconds)
                sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_TRUNCATE, nil, nil)
                sqlite3_busy_timeout(db, Int32(Int(bitPattern: context) - 1))
            } else if pages >= Database.checkpointPages {
                sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
            }
            return SQLITE_OK
        }
        // The context carries the connection's busy timeout, plus one so it is never a null pointer.
        sqlite3_wal_hook(handle, hook, UnsafeMutableRawPointer(bitPattern: Int(busyTimeoutMilliseconds) + 1))
    }

    /// Runs one or more statements that return no rows.
    public func execute(_ sql: String) throws(SQLiteError) {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let result = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        if result != SQLITE_OK {
            let message = errorMessage.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(errorMessage)
            throw SQLiteError.failed(code: result, message: message, sql: sql)
        }
    }

    /// Compiles a statement.
    public func prepare(_ sql: String) throws(SQLiteError) -> Statement {
        var pointer: OpaquePointer?
        let result = sqlite3_prepare_v2(handle, sql, -1, &pointer, nil)
        guard result == SQLITE_OK, let pointer else { throw error(result, sql: sql) }
        return Statement(handle: pointer, database: self, sql: sql)
    }

    /// The first column of the first row of `sql` as it is stored (see ``Row/value(_:)``), or nil
    /// when there is no row.
    public func scalar(_ sql: String) throws(SQLiteError) -> SQLValue? {
        try prepare(sql).firstRow([]) { row throws(SQLiteError) in try row.value(0) }
    }

    /// The rowid of the last insert.
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// How many rows the last completed `INSERT`, `UPDATE` or `DELETE` changed (not counting
    /// triggers and foreign-key actions; a row an `ON CONFLICT DO NOTHING` left alone counts none).
    public var changes: Int { Int(sqlite3_changes64(handle)) }

    /// Whether no transaction is open (SQLite's autocommit mode).
    public var isAutocommit: Bool { sqlite3_get_autocommit(handle) != 0 }

    /// The virtual-machine steps run so far by the statements still prepared on this connection
    /// (`SQLITE_STMTSTATUS_VM_STEP`): the work queries did, counted the same on any machine, so a
    /// test can tell a query that reads a few rows from one that scans a table.
    package var virtualMachineSteps: Int {
        var total = 0
        var statement = sqlite3_next_stmt(handle, nil)
        while let current = statement {
            total += Int(sqlite3_stmt_status(current, SQLITE_STMTSTATUS_VM_STEP, 0))
            statement = sqlite3_next_stmt(handle, current)
        }
        return total
    }

    func error(_ code: Int32, sql: String?) -> SQLiteError {
        .failed(code: code, message: String(cString: sqlite3_errmsg(handle)), sql: sql)
    }
}
