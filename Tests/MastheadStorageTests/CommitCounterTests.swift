import MastheadSQLite
import MastheadStorage
import Testing

/// SQLite's commit counter, read from shared memory.
struct CommitCounterTests {
    @Test func counter_movesWithEveryCommit_ofAnyConnection_andNotWithReads() throws {
        let path = StoreTests.temporaryPath()
        defer { StoreTests.remove(path) }
        let writer = try SQLiteStore(path: path)
        let reader = try SQLiteStore(path: path)
        let counter = try #require(try reader.database.commitCounter())
        let start = counter.value
        #expect(try !reader.userExists("u0"))
        #expect(counter.value == start)
        try ReaderTests.link(writer, 0)
        let first = counter.value
        #expect(first != start)
        try ReaderTests.link(reader, 1)
        #expect(counter.value != first)
    }
}
