import Foundation
import MastheadPostgreSQL
import MastheadTestSupport
import Testing

/// The listening connection: it counts committed notifications, and says when it cannot.
@Suite(.enabled(if: !TestPostgreSQL.isSkipped, "MASTHEAD_SKIP_POSTGRES=1"))
struct ListenerTests {
    /// Polls `condition` every millisecond for up to ten seconds (a bounded wait, not a timing).
    static func eventually(_ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if try condition() { return true }
            usleep(1000)
        }
        return try condition()
    }

    @Test func count_movesWithCommittedNotifications_notWithRolledBackOnes() throws {
        let url = try TestPostgreSQL.freshDatabase()
        let listener = try PostgreSQLListener(url: url, channel: "changes")
        let sender = try PostgreSQLConnection(url)
        #expect(listener.count == 0)
        _ = try sender.inTransaction { () throws(PostgreSQLError) in try sender.run("SELECT pg_notify('changes', 'x')", []) }
        #expect(Self.eventually { listener.count == 1 })
        #expect(throws: PostgreSQLError.self) {
            try sender.inTransaction { () throws(PostgreSQLError) in
                try sender.run("SELECT pg_notify('changes', 'y')", [])
                throw .noRow(sql: "rolled back")
            }
        }
        try sender.run("SELECT pg_notify('changes', 'z')", [])
        #expect(Self.eventually { listener.count == 2 })
        #expect(listener.count == 2)
    }

    /// The connection is terminated while new connections are refused: the count is nil (what
    /// was notified cannot be told) until the listener is back, with a count it never had.
    @Test func count_isNilWhileTheConnectionIsDown_andMovesOnceItIsBack() throws {
        let url = try TestPostgreSQL.freshDatabase()
        let database = try #require(url.split(separator: "/").last.map(String.init))
        let listener = try PostgreSQLListener(url: url, channel: "changes")
        let admin = try PostgreSQLConnection(String(url.dropLast(database.count)) + "postgres")
        try admin.execute("ALTER DATABASE \(database) ALLOW_CONNECTIONS false")
        try admin.run("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND query LIKE 'LISTEN%'", [.text(database)])
        #expect(Self.eventually { listener.count == nil })
        try admin.execute("ALTER DATABASE \(database) ALLOW_CONNECTIONS true")
        #expect(Self.eventually { listener.count != nil })
        #expect(listener.count == 1)
        #expect(listener.reconnections == 1)
        try PostgreSQLConnection(url).run("SELECT pg_notify('changes', 'after')", [])
        #expect(Self.eventually { listener.count == 2 })
    }
}
