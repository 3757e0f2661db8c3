import CSQLite

extension Database {
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
    public func commitCounter() throws(SQLiteError) -> CommitCounter? {
        // A read opens the WAL and maps the first region of its index.
        _ = try scalar("SELECT count(*) FROM sqlite_schema")
        var file: UnsafeMutablePointer<sqlite3_file>?
        guard sqlite3_file_control(handle, "main", SQLITE_FCNTL_FILE_POINTER, &file) == SQLITE_OK,
            let file, let methods = file.pointee.pMethods, methods.pointee.iVersion >= 2, let map = methods.pointee.xShmMap
        else { return nil }
        var region: UnsafeMutableRawPointer?
        guard map(file, 0, CommitCounter.regionBytes, 0, &region) == SQLITE_OK, let region else { return nil }
        return CommitCounter(header: UnsafeRawPointer(region), database: self)
    }
}
