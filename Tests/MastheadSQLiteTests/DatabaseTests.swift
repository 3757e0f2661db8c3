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

    @Test func open_throws_whenTheFolderDoesNotExist() {
        #expect {
            try Database(path: "/no/such/folder/db.sqlite")
        } throws: { error in
            guard case SQLiteError.failed(let code, let message, nil) = error else { return false }
            return code == 14 && message.hasSuffix(": /no/such/folder/db.sqlite")  // SQLITE_CANTOPEN
        }
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
