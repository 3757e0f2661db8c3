import MastheadSQLite
import Testing

/// Write transactions and savepoints: what a body's failure undoes, and what it keeps.
struct TransactionTests {
    struct Refused: Error, Equatable {}

    static func database(at path: String) throws -> Database {
        let database = try Database(path: path)
        try database.execute("CREATE TABLE t (id INTEGER PRIMARY KEY)")
        return database
    }

    static func ids(_ database: Database) throws -> [Int64] {
        try database.prepare("SELECT id FROM t ORDER BY id").rows([]) { row throws(SQLiteError) in try row.integer(0) }
    }

    @Test func inTransaction_commits_whenBodyReturns_andRollsBack_whenItThrows() throws {
        let path = TemporaryFile.path()
        defer { TemporaryFile.remove(path) }
        let database = try Self.database(at: path)
        try database.inTransaction { () throws(SQLiteError) in try database.execute("INSERT INTO t VALUES (1)") }
        #expect(throws: Refused()) {
            try database.inTransaction {
                try database.execute("INSERT INTO t VALUES (2)")
                throw Refused()
            }
        }
        #expect(try Self.ids(database) == [1])
        #expect(database.isAutocommit)
    }

    /// The body's own error type comes through the typed form, SQLite's failures as that type too.
    @Test func inTransaction_throwsTheBodysErrorType() throws {
        let path = TemporaryFile.path()
        defer { TemporaryFile.remove(path) }
        let database = try Self.database(at: path)
        #expect(throws: SQLiteError.failed(code: 1555, message: "UNIQUE constraint failed: t.id", sql: "INSERT INTO t VALUES (1), (1)")) {
            try database.inTransaction { () throws(SQLiteError) in try database.execute("INSERT INTO t VALUES (1), (1)") }
        }
        #expect(try Self.ids(database).isEmpty)
    }

    @Test func savepoint_rollsBackOnlyItsBody_whenItThrows() throws {
        let path = TemporaryFile.path()
        defer { TemporaryFile.remove(path) }
        let database = try Self.database(at: path)
        let outcomes = try database.inTransaction { () throws(SQLiteError) -> [Result<Int, Refused>] in
            try database.execute("INSERT INTO t VALUES (1)")
            let kept = try database.inSavepoint { () throws(Refused) -> Int in
                try? database.execute("INSERT INTO t VALUES (2)")
                return 2
            }
            let undone = try database.inSavepoint { () throws(Refused) -> Int in
                try? database.execute("INSERT INTO t VALUES (3)")
                throw Refused()
            }
            try database.execute("INSERT INTO t VALUES (4)")
            return [kept, undone]
        }
        #expect(outcomes == [.success(2), .failure(Refused())])
        #expect(try Self.ids(database) == [1, 2, 4])
    }

    @Test func savepoints_nest() throws {
        let path = TemporaryFile.path()
        defer { TemporaryFile.remove(path) }
        let database = try Self.database(at: path)
        try database.inTransaction { () throws(SQLiteError) in
            let outer = try database.inSavepoint { () throws(SQLiteError) -> Result<Int, Refused> in
                try database.execute("INSERT INTO t VALUES (1)")
                return try database.inSavepoint { () throws(Refused) -> Int in
                    try? database.execute("INSERT INTO t VALUES (2)")
                    throw Refused()
                }
            }
            #expect(try outer.get() == .failure(Refused()))
        }
        #expect(try Self.ids(database) == [1])
    }
}
