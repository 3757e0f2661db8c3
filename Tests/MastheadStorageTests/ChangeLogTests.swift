import MastheadSQLite
import MastheadStorage
import Testing

/// The change log other processes read to keep their caches true.
struct ChangeLogTests {
    @Test func changes_areReadAfterAPosition_skippingTheReadersOwn() throws {
        let path = StoreTests.temporaryPath()
        defer { StoreTests.remove(path) }
        let store = try SQLiteStore(path: path)
        #expect(try store.changeLogPosition() == 0)
        try store.recordChanges([.user("a")], origin: 1)
        try store.recordChanges([.user("b\u{0}c"), .issue(publicationId: "p", issueId: "i")], origin: 2)
        let read = try store.changes(after: 0, notFrom: 1)
        #expect(read == ChangeLogRead(changes: [.user("b\u{0}c"), .issue(publicationId: "p", issueId: "i")], position: 3, missedSome: false))
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

    @Test func pruning_keepsTheNewestEntries_andAReaderBehindIsTold() throws {
        let path = StoreTests.temporaryPath()
        defer { StoreTests.remove(path) }
        let store = try SQLiteStore(path: path)
        try store.recordChanges([.user("old")], origin: 1)
        try store.database.inTransaction {
            for index in 0..<Int(SQLiteStore.changeLogLength) { try store.recordChanges([.user("u\(index)")], origin: 1) }
            try store.pruneChangeLog()
        }
        #expect(try store.database.scalar("SELECT count(*) FROM changes") == .integer(SQLiteStore.changeLogLength))
        // Entry 1 was pruned: a reader at 0 missed it; one at 1 missed nothing.
        #expect(try store.changes(after: 0, notFrom: 2).missedSome)
        #expect(try !store.changes(after: 1, notFrom: 2).missedSome)
        // A reader ahead of the log (the file was replaced) missed everything it had not seen.
        #expect(try store.changes(after: SQLiteStore.changeLogLength + 10, notFrom: 2).missedSome)
    }
}
