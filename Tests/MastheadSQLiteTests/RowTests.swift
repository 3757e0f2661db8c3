import MastheadSQLite
import Testing

/// Columns read as the types they hold: anything else is an error naming the column and the SQL.
struct RowTests {
    static let sql = "SELECT name, count, flag FROM t"

    /// A database at `path` whose table `t` holds one row of these values.
    static func table(_ values: [SQLValue], at path: String) throws -> Database {
        let database = try Database(path: path)
        try database.execute("CREATE TABLE t (name TEXT, count INTEGER, flag INTEGER)")
        try database.prepare("INSERT INTO t VALUES (?, ?, ?)").run(values)
        return database
    }

    @Test func columns_readAsTheirTypes() throws {
        let path = TemporaryFile.path()
        defer { TemporaryFile.remove(path) }
        let database = try Self.table([.text("a\u{0}b"), .integer(7), .bool(true)], at: path)
        let row = try database.prepare(Self.sql).firstRow([]) { row throws(SQLiteError) in
            (try row.text(0), try row.integer(1), try row.bool(2), try row.optionalText(0), try row.value(1))
        }
        #expect(row?.0 == "a\u{0}b")
        #expect(row?.1 == 7)
        #expect(row?.2 == true)
        #expect(row?.3 == "a\u{0}b")
        #expect(row?.4 == .integer(7))
    }

    @Test func null_readAsOptional_isNil() throws {
        let path = TemporaryFile.path()
        defer { TemporaryFile.remove(path) }
        let database = try Self.table([.null, .null, .null], at: path)
        let row = try database.prepare(Self.sql).firstRow([]) { row throws(SQLiteError) in
            (try row.optionalText(0), try row.optionalInteger(1), try row.optionalBool(2), try row.value(0))
        }
        #expect(row?.0 == nil && row?.1 == nil && row?.2 == nil)
        #expect(row?.3 == .null)
    }

    @Test func null_readAsText_throwsNamingColumnAndSQL() throws {
        let path = TemporaryFile.path()
        defer { TemporaryFile.remove(path) }
        let database = try Self.table([.null, .integer(1), .bool(false)], at: path)
        #expect(throws: SQLiteError.columnType(column: "name", expected: "TEXT", found: "NULL", sql: Self.sql)) {
            try database.prepare(Self.sql).firstRow([]) { row throws(SQLiteError) in try row.text(0) }
        }
    }

    @Test func text_readAsInteger_throws_ratherThanConverting() throws {
        let path = TemporaryFile.path()
        defer { TemporaryFile.remove(path) }
        let database = try Self.table([.text("12"), .integer(1), .bool(false)], at: path)
        #expect(throws: SQLiteError.columnType(column: "n", expected: "INTEGER", found: "TEXT", sql: "SELECT name AS n FROM t")) {
            try database.prepare("SELECT name AS n FROM t").firstRow([]) { row throws(SQLiteError) in try row.optionalInteger(0) }
        }
    }

    @Test func integerOtherThan0Or1_readAsBool_throws() throws {
        let path = TemporaryFile.path()
        defer { TemporaryFile.remove(path) }
        let database = try Self.table([.text("x"), .integer(1), .integer(2)], at: path)
        #expect(throws: SQLiteError.columnValue(column: "flag", value: "2", expected: "0 or 1 (a boolean)", sql: Self.sql)) {
            try database.prepare(Self.sql).rows([]) { row throws(SQLiteError) in try row.bool(2) }
        }
    }

    /// A failed read leaves the statement reset: it runs again at once.
    @Test func statement_isReusable_afterAReadFailed() throws {
        let path = TemporaryFile.path()
        defer { TemporaryFile.remove(path) }
        let database = try Self.table([.null, .integer(1), .bool(false)], at: path)
        let statement = try database.prepare(Self.sql)
        #expect(throws: SQLiteError.self) { try statement.firstRow([]) { row throws(SQLiteError) in try row.text(0) } }
        #expect(try statement.firstRow([]) { row throws(SQLiteError) in try row.integer(1) } == 1)
        #expect(database.isAutocommit)
    }

    @Test func singleRow_throws_whenThereIsNone() throws {
        let path = TemporaryFile.path()
        defer { TemporaryFile.remove(path) }
        let database = try Self.table([.null, .integer(1), .bool(false)], at: path)
        #expect(throws: SQLiteError.noRow(sql: "SELECT count FROM t WHERE 0")) {
            try database.prepare("SELECT count FROM t WHERE 0").singleRow([]) { row throws(SQLiteError) in try row.integer(0) }
        }
    }

    /// Bytes that are not UTF-8 (a NUL, 0xFF, a lone continuation byte) come back as they went in;
    /// an empty blob is an empty blob, not NULL.
    @Test func blob_roundTripsEveryByte_andEmptyIsNotNull() throws {
        let path = TemporaryFile.path()
        defer { TemporaryFile.remove(path) }
        let database = try Database(path: path)
        try database.execute("CREATE TABLE b (id INTEGER PRIMARY KEY, body BLOB NOT NULL)")
        let bytes: [UInt8] = [0x7B, 0x00, 0xFF, 0x80, 0x7D]
        try database.prepare("INSERT INTO b (body) VALUES (?)").run([.blob(bytes)])
        try database.prepare("INSERT INTO b (body) VALUES (?)").run([.blob([])])
        let read = try database.prepare("SELECT body, typeof(body), length(body) FROM b ORDER BY id").rows([]) { row throws(SQLiteError) in
            (try row.blob(0), try row.text(1), try row.integer(2), try row.value(0))
        }
        #expect(read.map(\.0) == [bytes, []])
        #expect(read.map(\.1) == ["blob", "blob"])
        #expect(read.map(\.2) == [5, 0])
        #expect(read.map(\.3) == [.blob(bytes), .blob([])])
    }

    @Test func blob_readAsText_throws_ratherThanConverting() throws {
        let path = TemporaryFile.path()
        defer { TemporaryFile.remove(path) }
        let database = try Self.table([.blob([0x61]), .integer(1), .bool(false)], at: path)
        #expect(throws: SQLiteError.columnType(column: "name", expected: "TEXT", found: "BLOB", sql: Self.sql)) {
            try database.prepare(Self.sql).firstRow([]) { row throws(SQLiteError) in try row.text(0) }
        }
        #expect(throws: SQLiteError.columnType(column: "count", expected: "BLOB", found: "INTEGER", sql: Self.sql)) {
            try database.prepare(Self.sql).firstRow([]) { row throws(SQLiteError) in try row.blob(1) }
        }
    }
}
