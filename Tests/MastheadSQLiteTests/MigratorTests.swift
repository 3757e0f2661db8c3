import MastheadSQLite
import Testing

/// Numbered migrations, each applied once and recorded.
struct MigratorTests {
    static let first = "CREATE TABLE t (id INTEGER PRIMARY KEY); INSERT INTO t VALUES (1);"
    static let second = "INSERT INTO t VALUES (2);"

    static func ids(_ database: Database) throws -> [Int64] {
        try database.prepare("SELECT id FROM t ORDER BY id").rows([]) { row throws(SQLiteError) in try row.integer(0) }
    }

    static func versions(_ database: Database) throws -> [Int64] {
        try database.prepare("SELECT version FROM migrations ORDER BY version").rows([]) { row throws(SQLiteError) in try row.integer(0) }
    }

    @Test func migrations_applyOnce_andOnlyTheNewOnesLater() throws {
        let path = TemporaryFile.path()
        defer { TemporaryFile.remove(path) }
        let database = try Database(path: path)
        try Migrator(migrations: [Self.first]).migrate(database)
        try Migrator(migrations: [Self.first]).migrate(database)
        #expect(try Self.ids(database) == [1])
        try Migrator(migrations: [Self.first, Self.second]).migrate(try Database(path: path))
        try Migrator(migrations: [Self.first, Self.second]).migrate(database)
        #expect(try Self.ids(database) == [1, 2])
        #expect(try Self.versions(database) == [1, 2])
    }

    /// A migration that fails leaves neither its effects nor its record, and is tried again.
    @Test func failedMigration_leavesNoTrace() throws {
        let path = TemporaryFile.path()
        defer { TemporaryFile.remove(path) }
        let database = try Database(path: path)
        let broken = "INSERT INTO t VALUES (2); INSERT INTO nowhere VALUES (3);"
        #expect(throws: SQLiteError.failed(code: 1, message: "no such table: nowhere", sql: broken)) {
            try Migrator(migrations: [Self.first, broken]).migrate(database)
        }
        #expect(try Self.ids(database) == [1])
        #expect(try Self.versions(database) == [1])
        try Migrator(migrations: [Self.first, Self.second]).migrate(database)
        #expect(try Self.ids(database) == [1, 2])
    }
}
