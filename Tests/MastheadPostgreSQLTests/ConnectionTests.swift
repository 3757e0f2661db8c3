import Foundation
import MastheadPostgreSQL
import MastheadTestSupport
import Testing

/// The wrapper on a fresh database: parameters, typed rows, transactions and errors.
@Suite(.enabled(if: !TestPostgreSQL.isSkipped, "MASTHEAD_SKIP_POSTGRES=1"))
struct ConnectionTests {
    static func connect() throws -> PostgreSQLConnection { try PostgreSQLConnection(try TestPostgreSQL.freshDatabase()) }

    @Test func values_roundTrip_asParameters() throws {
        let connection = try Self.connect()
        try connection.execute("CREATE TABLE t (i bigint, s text, b boolean, d bytea)")
        let text = "it's \"quoted\" -- é; DROP TABLE t"
        let bytes: [UInt8] = [0x00, 0xFF, 0x5C, 0x78, 0x27]
        #expect(try connection.run("INSERT INTO t VALUES ($1, $2, $3, $4), ($5, $6, $7, $8)", [
            .integer(.min), .text(text), .bool(true), .bytes(bytes), .null, .text(""), .bool(false), .bytes([]),
        ]) == 2)
        let rows = try connection.rows("SELECT i, s, b, d FROM t ORDER BY i NULLS LAST", []) { row throws(PostgreSQLError) in
            [try row.value(0), try row.value(1), try row.value(2), try row.value(3)]
        }
        #expect(rows == [[.integer(.min), .text(text), .bool(true), .bytes(bytes)], [.null, .text(""), .bool(false), .bytes([])]])
    }

    /// A text parameter is a C string: a NUL would cut it short, so it is refused, not truncated.
    @Test func textWithNUL_isRefused_notCut() throws {
        let connection = try Self.connect()
        #expect(throws: PostgreSQLError.textWithNUL(parameter: 2, sql: "SELECT $1::bigint, $2::text")) {
            try connection.scalar("SELECT $1::bigint, $2::text", [.integer(1), .text("victim\u{0}x")])
        }
    }

    @Test func serverErrors_carryTheirSQLSTATE_andTheSQL() throws {
        let connection = try Self.connect()
        try connection.execute("CREATE TABLE t (k text PRIMARY KEY)")
        try connection.run("INSERT INTO t VALUES ($1)", [.text("a")])
        #expect {
            try connection.run("INSERT INTO t VALUES ($1)", [.text("a")])
        } throws: { error in
            guard case PostgreSQLError.failed(let state, let message, let sql) = error else { return false }
            return state == "23505" && message.contains("duplicate key") && sql == "INSERT INTO t VALUES ($1)"
        }
    }

    @Test func column_readAsAnotherType_namesTheColumn() throws {
        let connection = try Self.connect()
        #expect(throws: PostgreSQLError.columnType(column: "n", expected: "text", found: "NULL", sql: "SELECT NULL::text AS n")) {
            try connection.singleRow("SELECT NULL::text AS n", []) { row throws(PostgreSQLError) in try row.text(0) }
        }
        #expect(throws: PostgreSQLError.columnType(column: "n", expected: "bigint or integer or smallint", found: "text", sql: "SELECT 'x'::text AS n")) {
            try connection.singleRow("SELECT 'x'::text AS n", []) { row throws(PostgreSQLError) in try row.integer(0) }
        }
    }

    @Test func transaction_rollsBack_whenBodyThrows_andASavepointUndoesItsBodyAlone() throws {
        let connection = try Self.connect()
        try connection.execute("CREATE TABLE t (k text PRIMARY KEY)")
        struct Failure: Error {}
        #expect(throws: Failure.self) {
            try connection.inTransaction {
                try connection.run("INSERT INTO t VALUES ($1)", [.text("gone")])
                throw Failure()
            }
        }
        try connection.inTransaction { () throws(PostgreSQLError) in
            try connection.run("INSERT INTO t VALUES ($1)", [.text("kept")])
            // A failed statement aborts a PostgreSQL transaction; the savepoint recovers it.
            let outcome = try connection.inSavepoint { () throws(PostgreSQLError) in try connection.run("INSERT INTO t VALUES ($1)", [.text("kept")]) }
            #expect(throws: PostgreSQLError.self) { try outcome.get() }
            try connection.run("INSERT INTO t VALUES ($1)", [.text("also")])
        }
        #expect(try connection.rows("SELECT k FROM t ORDER BY k", []) { row throws(PostgreSQLError) in try row.text(0) } == ["also", "kept"])
    }

    /// A body that swallows a failed statement's error returns with the transaction aborted:
    /// that is reported, not taken for a commit.
    @Test func transaction_whoseStatementFailedUnnoticed_isReportedAsRolledBack() throws {
        let connection = try Self.connect()
        try connection.execute("CREATE TABLE t (k text PRIMARY KEY)")
        #expect(throws: PostgreSQLError.self) {
            try connection.inTransaction { () throws(PostgreSQLError) in
                try connection.run("INSERT INTO t VALUES ($1)", [.text("a")])
                _ = try? connection.run("INSERT INTO t VALUES ($1)", [.text("a")])
            }
        }
        #expect(connection.isIdle)
        #expect(try connection.scalar("SELECT count(*) FROM t") == .integer(0))
    }

    @Test func readSnapshot_seesOneState_whileAnotherConnectionCommits() throws {
        let url = try TestPostgreSQL.freshDatabase()
        let reader = try PostgreSQLConnection(url)
        let writer = try PostgreSQLConnection(url)
        try writer.execute("CREATE TABLE t (k bigint)")
        let counts = try reader.readSnapshot { () throws(PostgreSQLError) in
            let before = try reader.scalar("SELECT count(*) FROM t")
            try writer.run("INSERT INTO t VALUES ($1)", [.integer(1)])
            return (before, try reader.scalar("SELECT count(*) FROM t"))
        }
        #expect(counts.0 == .integer(0) && counts.1 == .integer(0))
        #expect(try reader.scalar("SELECT count(*) FROM t") == .integer(1))
    }

    @Test(arguments: [
        ("postgresql://ana:s3cret@db.example:5432/masthead", "postgresql://ana@db.example:5432/masthead"),
        ("postgres://ana:p@ss:w@rd@db/x?sslmode=require&password=other", "postgres://ana@db/x?sslmode=require"),
        ("postgresql://ana@db/x", "postgresql://ana@db/x"),
        ("postgresql:///x?password=pw", "postgresql:///x"),
        ("host=db user=ana password=s3cret dbname=x", "host=db user=ana dbname=x"),
    ])
    func redacted_removesThePassword(given: String, shown: String) {
        #expect(PostgreSQLConnection.redacted(given) == shown)
    }

    @Test func connectionFailure_namesTheTarget_withoutItsPassword() throws {
        let url = try TestPostgreSQL.freshDatabase()
        let wrong = url.replacingOccurrences(of: "://postgres@", with: "://nobody:s3cret@")
        #expect {
            try PostgreSQLConnection(wrong)
        } throws: { error in
            let text = "\(error)"
            return text.contains("nobody@") && !text.contains("s3cret") && text.contains("nobody")
        }
    }
}
