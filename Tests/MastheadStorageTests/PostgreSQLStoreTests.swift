import Dispatch
import Foundation
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
    /// schema is created once and every one of them opens. The connections are made first, so
    /// that the migrations start together.
    @Test func connectionsMigratingTogether_applyEachMigrationOnce() throws {
        let url = try TestPostgreSQL.freshDatabase()
        nonisolated(unsafe) let connections = try (0..<8).map { _ in try PostgreSQLConnection(url) }
        let failures = Mutex<[String]>([])
        // A thread each (Dispatch would run as many at once as there are cores).
        let done = DispatchGroup()
        for connection in connections {
            done.enter()
            nonisolated(unsafe) let connection = connection
            Thread {
                do { try PostgreSQLSchema.migrator.migrate(connection) } catch { failures.withLock { $0.append("\(error)") } }
                done.leave()
            }.start()
        }
        done.wait()
        #expect(failures.withLock { $0 } == [])
        #expect(try connections[0].scalar("SELECT count(*) FROM migrations") == .integer(Int64(PostgreSQLSchema.migrator.migrations.count)))
        #expect(try PostgreSQLStore(url: url).userCount() == 0)
    }

    /// A writer's change-log entries are numbered when it holds the log, until it commits: a
    /// second writer's entries come after, so a reader that has read up to an id never finds an
    /// older entry committed later.
    @Test func changeLog_entriesAreNumberedInCommitOrder_acrossConnections() throws {
        let url = try TestPostgreSQL.freshDatabase()
        let first = try PostgreSQLStore(url: url)
        nonisolated(unsafe) let second = try PostgreSQLStore(url: url)
        let reader = try PostgreSQLStore(url: url)
        let secondDone = DispatchSemaphore(value: 0)
        try first.connection.inTransaction {
            try first.recordChanges([.user("first")], origin: 1)
            DispatchQueue.global().async {
                _ = try? second.inTransaction { () throws(StorageError) in try second.recordChanges([.user("second")], origin: 2) }
                secondDone.signal()
            }
            // The first commits only once the second is waiting for a lock.
            let waiting = "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()"
            while try reader.connection.scalar(waiting) == .integer(0) { usleep(1000) }
            #expect(try reader.changes(after: 0, notFrom: 3).changes == [])
        }
        secondDone.wait()
        #expect(try reader.changes(after: 0, notFrom: 3) == ChangeLogRead(changes: [.user("first"), .user("second")], position: 2, missedSome: false))
    }
}
