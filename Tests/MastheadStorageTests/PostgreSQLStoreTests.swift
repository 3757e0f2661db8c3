import Dispatch
import Masthead
import MastheadPostgreSQL
@testable import MastheadStorage
import MastheadTestSupport
import Synchronization
import Testing

/// What only the PostgreSQL store does: migrations under an advisory lock, and the change log
/// numbered in commit order across connections.
@Suite(.enabled(if: !TestPostgreSQL.isSkipped, "MASTHEAD_SKIP_POSTGRES=1"))
struct PostgreSQLStoreTests {
    @Test func migrations_areRecordedOnce_andNotAppliedAgain() throws {
        let url = try TestPostgreSQL.freshDatabase()
        let store = try PostgreSQLStore(url: url)
        let count = Int64(PostgreSQLSchema.migrator.migrations.count)
        #expect(try store.connection.scalar("SELECT max(version) FROM migrations") == .integer(count))
        _ = try PostgreSQLStore(url: url)
        #expect(try store.connection.scalar("SELECT count(*) FROM migrations") == .integer(count))
    }

    /// Instances starting together on a new database: each waits for the advisory lock, so the
    /// schema is created once and every one of them opens.
    @Test func connectionsMigratingTogether_applyEachMigrationOnce() throws {
        let url = try TestPostgreSQL.freshDatabase()
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 6) { _ in
            do { _ = try PostgreSQLStore(url: url) } catch { failures.withLock { $0.append("\(error)") } }
        }
        #expect(failures.withLock { $0 } == [])
        let connection = try PostgreSQLConnection(url)
        #expect(try connection.scalar("SELECT count(*) FROM migrations") == .integer(Int64(PostgreSQLSchema.migrator.migrations.count)))
    }

    /// A writer's change-log entries are numbered when it holds the log, until it commits: a
    /// second writer's entries come after, so a reader that has read up to an id never finds an
    /// older entry committed later.
    @Test func changeLog_entriesAreNumberedInCommitOrder_acrossConnections() throws {
        let url = try TestPostgreSQL.freshDatabase()
        let first = try PostgreSQLStore(url: url)
        let reader = try PostgreSQLStore(url: url)
        let secondDone = DispatchSemaphore(value: 0)
        try first.inTransaction { () throws(StorageError) in
            try first.recordChanges([.user("first")], origin: 1)
            DispatchQueue.global().async {
                if let second = try? PostgreSQLStore(url: url) {
                    _ = try? second.inTransaction { () throws(StorageError) in try second.recordChanges([.user("second")], origin: 2) }
                }
                secondDone.signal()
            }
            // The second writer waits for the log, whatever the timing: nothing of it is readable yet.
            #expect(try reader.changes(after: 0, notFrom: 3).changes == [])
        }
        secondDone.wait()
        #expect(try reader.changes(after: 0, notFrom: 3) == ChangeLogRead(changes: [.user("first"), .user("second")], position: 2, missedSome: false))
    }
}
