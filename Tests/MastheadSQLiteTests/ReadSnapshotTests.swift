import MastheadSQLite
import Testing

/// A read snapshot sees one state of the database while another connection commits.
struct ReadSnapshotTests {
    static func count(_ database: Database) throws(SQLiteError) -> Int64 {
        try database.prepare("SELECT count(*) FROM t").singleRow([]) { row throws(SQLiteError) in try row.integer(0) }
    }

    @Test func snapshot_doesNotSeeCommitsMadeDuringIt_andTheNextReadDoes() throws {
        let path = TemporaryFile.path()
        defer { TemporaryFile.remove(path) }
        let writer = try Database(path: path)
        try writer.execute("CREATE TABLE t (id INTEGER PRIMARY KEY); INSERT INTO t VALUES (1)")
        let reader = try Database(path: path, readOnly: true)
        let counts = try reader.readSnapshot { (snapshot: borrowing ReadSnapshot) throws(SQLiteError) -> [Int64] in
            let before = try Self.count(snapshot.database)
            try writer.execute("INSERT INTO t VALUES (2)")
            return [before, try Self.count(snapshot.database)]
        }
        #expect(counts == [1, 1])
        #expect(try Self.count(reader) == 2)
        #expect(reader.isAutocommit)
    }

    /// The snapshot ends with its body, thrown out of or not: nothing stays pinned.
    @Test func snapshot_ends_whenItsBodyThrows() throws {
        struct Stop: Error {}
        let path = TemporaryFile.path()
        defer { TemporaryFile.remove(path) }
        let writer = try Database(path: path)
        try writer.execute("CREATE TABLE t (id INTEGER PRIMARY KEY)")
        let reader = try Database(path: path)
        #expect(throws: Stop.self) {
            try reader.readSnapshot { snapshot in
                _ = try Self.count(snapshot.database)
                throw Stop()
            }
        }
        #expect(reader.isAutocommit)
        try writer.execute("INSERT INTO t VALUES (1)")
        #expect(try Self.count(reader) == 1)
    }

    /// Inside a transaction the snapshot is the transaction's: it sees the transaction's own writes.
    @Test func snapshot_insideATransaction_isThatTransactions() throws {
        let path = TemporaryFile.path()
        defer { TemporaryFile.remove(path) }
        let database = try Database(path: path)
        try database.execute("CREATE TABLE t (id INTEGER PRIMARY KEY)")
        let seen = try database.inTransaction { () throws(SQLiteError) -> Int64 in
            try database.execute("INSERT INTO t VALUES (1)")
            return try database.readSnapshot { (snapshot: borrowing ReadSnapshot) throws(SQLiteError) in try Self.count(snapshot.database) }
        }
        #expect(seen == 1)
        #expect(database.isAutocommit)
    }
}
