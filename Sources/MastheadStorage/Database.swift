import CSQLite

/// One SQLite connection, owned by one thread at a time.
///
/// Opened with `sqlite3_open_v2` (closed even when opening fails), extended result codes, a busy
/// timeout, WAL journal (checked: the pragma must answer `wal`) and `synchronous = FULL`, so a
/// committed transaction survives power loss. Not `Sendable`: give each thread its own.
public final class Database {
    let handle: OpaquePointer
    public let path: String

    /// Opens (creating if needed) the database at `path`.
    /// - Parameter readOnly: open without write access (for readers beside a running service).
    public init(path: String, readOnly: Bool = false, busyTimeoutMilliseconds: Int32 = 5000) throws(StorageError) {
        self.path = path
        var pointer: OpaquePointer?
        let flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) | SQLITE_OPEN_NOMUTEX
        let result = sqlite3_open_v2(path, &pointer, flags, nil)
        guard result == SQLITE_OK, let pointer else {
            let message = pointer.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close_v2(pointer)
            throw StorageError.sqlite(code: result, message: "\(message): \(path)", sql: nil)
        }
        handle = pointer
        sqlite3_extended_result_codes(handle, 1)
        sqlite3_busy_timeout(handle, busyTimeoutMilliseconds)
        if !readOnly {
            let mode = try scalarText("PRAGMA journal_mode = WAL")
            guard mode?.lowercased() == "wal" else { throw StorageError.unexpectedSetting(pragma: "journal_mode", value: mode ?? "") }
            try execute("PRAGMA synchronous = FULL")
        }
        try execute("PRAGMA foreign_keys = ON")
    }

    deinit { sqlite3_close_v2(handle) }

    /// Runs one or more statements that return no rows.
    public func execute(_ sql: String) throws(StorageError) {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let result = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        if result != SQLITE_OK {
            let message = errorMessage.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(errorMessage)
            throw StorageError.sqlite(code: result, message: message, sql: sql)
        }
    }

    /// Compiles a statement.
    public func prepare(_ sql: String) throws(StorageError) -> Statement {
        var pointer: OpaquePointer?
        let result = sqlite3_prepare_v2(handle, sql, -1, &pointer, nil)
        guard result == SQLITE_OK, let pointer else { throw error(result, sql: sql) }
        return Statement(handle: pointer, database: self, sql: sql)
    }

    /// Runs `body` in a transaction (`BEGIN IMMEDIATE`): committed when it returns, rolled back when it throws.
    public func inTransaction<R>(_ body: () throws -> R) throws -> R {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// Runs `body` in a read transaction (`BEGIN`, ended by `COMMIT`) so that its reads share one
    /// snapshot; inside the caller's transaction when one is open.
    public func inReadTransaction<R>(_ body: () throws(StorageError) -> R) throws(StorageError) -> R {
        if sqlite3_get_autocommit(handle) == 0 { return try body() }
        try execute("BEGIN")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// The first column of the first row, as text.
    public func scalarText(_ sql: String) throws(StorageError) -> String? {
        try prepare(sql).firstRow([]) { $0.text(0) } ?? nil
    }

    /// The counter of commits to this database by any connection, for a cheap "has anything
    /// changed?" before trusting a cache; nil when the database is not in WAL mode or its
    /// wal-index does not look as SQLite's unix VFS documents it.
    ///
    /// The counter is the wal-index header's `iChange` (SQLite's walformat.html §2.1, "The
    /// WAL-Index Header"; wal.c: "counter incremented each transaction"), read from the shared
    /// memory that every connection to the database maps: a load, no system call, no lock. The
    /// region is mapped through the file's own VFS (`xShmMap`, the mapping SQLite itself uses), so
    /// no second descriptor of the `-shm` file exists whose closing would release SQLite's POSIX
    /// locks. The counter keeps this connection open, and with it the mapping.
    public func commitCounter() throws(StorageError) -> CommitCounter? {
        // A read opens the WAL and maps the first region of its index.
        _ = try scalarText("SELECT count(*) FROM sqlite_schema")
        var file: UnsafeMutablePointer<sqlite3_file>?
        guard sqlite3_file_control(handle, "main", SQLITE_FCNTL_FILE_POINTER, &file) == SQLITE_OK,
            let file, let methods = file.pointee.pMethods, methods.pointee.iVersion >= 2, let map = methods.pointee.xShmMap
        else { return nil }
        var region: UnsafeMutableRawPointer?
        guard map(file, 0, CommitCounter.regionBytes, 0, &region) == SQLITE_OK, let region else { return nil }
        return CommitCounter(header: UnsafeRawPointer(region), database: self)
    }

    /// The rowid of the last insert.
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    func error(_ code: Int32, sql: String?) -> StorageError {
        .sqlite(code: code, message: String(cString: sqlite3_errmsg(handle)), sql: sql)
    }
}
