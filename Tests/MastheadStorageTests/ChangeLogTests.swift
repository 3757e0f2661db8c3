import MastheadSQLite
import MastheadStorage
import MastheadTestSupport
import Testing

/// The change log other processes read to keep their caches true.
struct ChangeLogTests {
    @Test(arguments: StoreBackend.tested) func changes_areReadAfterAPosition_skippingTheReadersOwn(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        #expect(try store.changeLogPosition() == 0)
        try store.recordChanges([.user("a")], origin: 1)
        // PostgreSQL text cannot hold a NUL (see StatementTests); SQLite's keeps it.
        let user = backend == .sqlite ? "b\u{0}c" : "b c"
        try store.recordChanges([.user(user), .issue(publicationId: "p", issueId: "i")], origin: 2)
        let read = try store.changes(after: 0, notFrom: 1)
        #expect(read == ChangeLogRead(changes: [.user(user), .issue(publicationId: "p", issueId: "i")], position: 3, missedSome: false))
        #expect(try store.changes(after: 3, notFrom: 1) == ChangeLogRead(changes: [], position: 3, missedSome: false))
        #expect(try store.changes(after: 1, notFrom: 2) == ChangeLogRead(changes: [], position: 3, missedSome: false))
        #expect(try store.changeLogPosition() == 3)
    }

    /// Every answer after a commit looks for changes: with nothing new, that costs the same
    /// whatever the log holds (the first and last entries come from the rowid, not a scan).
    @Test func readingNoNewChanges_costsTheSame_howeverLongTheLog() throws {
        let path = StoreTests.temporaryPath()
        defer { StoreTests.remove(path) }
        let store = try SQLiteStore(path: path)
        func stepsToReadNothingNew() throws -> Int {
            let position = try store.changeLogPosition()
            let before = store.database.virtualMachineSteps
            #expect(try store.changes(after: position, notFrom: 2).changes.isEmpty)
            return store.database.virtualMachineSteps - before
        }
        try store.recordChanges([.user("first")], origin: 1)
        let short = try stepsToReadNothingNew()
        try store.database.inTransaction {
            for index in 0..<10_000 { try store.recordChanges([.user("u\(index)")], origin: 1) }
        }
        #expect(try stepsToReadNothingNew() == short)
    }

    @Test(arguments: StoreBackend.tested) func pruning_keepsTheNewestEntries_andAReaderBehindIsTold(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        try store.recordChanges([.user("old")], origin: 1)
        // Entries 2 to changeLogLength + 1, written at once (the same SQL for both backends).
        try fixture.execute("""
            WITH RECURSIVE n (i) AS (SELECT 2 UNION ALL SELECT i + 1 FROM n WHERE i <= \(SQLiteStore.changeLogLength))
            INSERT INTO changes (id, origin, user_id) SELECT i, 1, 'u' || i FROM n
            """)
        try store.pruneChangeLog()
        #expect(try fixture.scalar("SELECT count(*) FROM changes") == .integer(SQLiteStore.changeLogLength))
        // Entry 1 was pruned: a reader at 0 missed it; one at 1 missed nothing.
        #expect(try store.changes(after: 0, notFrom: 2).missedSome)
        #expect(try !store.changes(after: 1, notFrom: 2).missedSome)
        // A reader ahead of the log (the file was replaced) missed everything it had not seen.
        #expect(try store.changes(after: SQLiteStore.changeLogLength + 10, notFrom: 2).missedSome)
    }
}
