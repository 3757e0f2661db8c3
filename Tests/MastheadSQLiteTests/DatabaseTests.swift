import Glibc
import MastheadSQLite
import Testing

/// Opening a connection, and SQLite's errors as they reach the caller.
struct DatabaseTests {
    @Test func open_usesWAL_fullSynchronous_andForeignKeys() throws {
        let path = TemporaryFile.path()
        defer { TemporaryFile.remove(path) }
        let database = try Database(path: path)
        #expect(try database.scalar("PRAGMA journal_mode") == .text("wal"))
        #expect(try database.scalar("PRAGMA synchronous") == .integer(2))
        #expect(try database.scalar("PRAGMA foreign_keys") == .integer(1))
    }

    /// Said as such, naming the folder, rather than as SQLite's "unable to open database file" (14).
    @Test func open_throws_whenTheFolderDoesNotExist_namingTheFolder() {
        #expect(throws: SQLiteError.missingFolder(path: "/no/such/folder/db.sqlite", folder: "/no/such/folder")) {
            try Database(path: "/no/such/folder/db.sqlite")
        }
        #expect(SQLiteError.missingFolder(path: "/no/such/folder/db.sqlite", folder: "/no/such/folder").description
            == "cannot create /no/such/folder/db.sqlite: the folder /no/such/folder does not exist")
    }

    /// A new file is readable by its owner only, whatever the umask; an existing file keeps its mode.
    @Test func open_createsTheFileReadableByItsOwnerOnly() throws {
        let path = TemporaryFile.path()
        defer { TemporaryFile.remove(path) }
        _ = try Database(path: path)
        var status = stat()
        #expect(stat(path, &status) == 0)
        #expect(status.st_mode & 0o777 == 0o600)
        #expect(chmod(path, 0o640) == 0)
        _ = try Database(path: path)
        #expect(stat(path, &status) == 0)
        #expect(status.st_mode & 0o777 == 0o640)
    }

    @Test func sqlError_carriesCodeMessageAndSQL() throws {
        let path = TemporaryFile.path()
        defer { TemporaryFile.remove(path) }
        let database = try Database(path: path)
        #expect(throws: SQLiteError.failed(code: 1, message: "no such table: nowhere", sql: "SELECT * FROM nowhere")) {
            try database.execute("SELECT * FROM nowhere")
        }
        #expect(throws: SQLiteError.failed(code: 1, message: "no such table: nowhere", sql: "SELECT * FROM nowhere")) {
            try database.prepare("SELECT * FROM nowhere")
        }
    }

    /// A constraint error is the extended code, and its message names no bound value.
    @Test func constraintError_isExtended_andNamesNoBoundValue() throws {
        let path = TemporaryFile.path()
        defer { TemporaryFile.remove(path) }
        let database = try Database(path: path)
        try database.execute("CREATE TABLE t (id TEXT PRIMARY KEY)")
        let insert = try database.prepare("INSERT INTO t (id) VALUES (?)")
        try insert.run([.text("secret-id")])
        #expect {
            try insert.run([.text("secret-id")])
        } throws: { error in
            guard case SQLiteError.failed(let code, let message, let sql) = error else { return false }
            return code == 1555 && !message.contains("secret-id") && sql == "INSERT INTO t (id) VALUES (?)"  // SQLITE_CONSTRAINT_PRIMARYKEY
        }
    }
}
