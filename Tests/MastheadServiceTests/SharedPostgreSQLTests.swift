import Foundation
import MastheadJSON
import MastheadPostgreSQL
import MastheadService
import MastheadTestSupport
import Testing

/// Two services on one PostgreSQL database, as two `masthead serve` instances: each learns of the
/// other's commits from PostgreSQL's notifications, and reads the change log before every answer
/// while its listening connection is down.
@Suite(.enabled(if: !TestPostgreSQL.isSkipped, "MASTHEAD_SKIP_POSTGRES=1"))
struct SharedPostgreSQLTests {
    static let subscription = ServiceRouterTests.transaction("r1", original: "r1", from: "2020-06-17T12:00:00Z", to: "2020-07-17T12:00:00Z")
    static let refunded = ServiceRouterTests.transaction(
        "r1", original: "r1", from: "2020-06-17T12:00:00Z", to: "2020-07-17T12:00:00Z", cancelled: "2020-06-20T00:00:00Z")

    /// Polls `condition` for up to ten seconds (a bounded wait: notifications arrive just after the commit).
    static func eventually(_ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if condition() { return true }
            usleep(1000)
        }
        return condition()
    }

    static func readable(_ harness: ServiceHarness) -> Bool? {
        ServiceRouterTests.readable(harness, "rita", "2020-07", at: "2020-07-02T00:00:00Z")
    }

    @Test func receiptThroughOne_andRefundThroughTheOther_areSeenByBoth() throws {
        let first = try ServiceHarness(backend: .postgreSQL)
        defer { first.close() }
        let second = try ServiceHarness(path: first.path)
        defer { second.close(remove: false) }
        #expect(Self.readable(second) == false)
        #expect(first.call("POST", "/v1/users/rita/receipts", json: #"{"status": 0, "latest_receipt_info": [\#(Self.subscription)]}"#).status == 200)
        #expect(Self.readable(first) == true)
        #expect(Self.eventually { Self.readable(second) == true })
        #expect(second.call("POST", "/v1/notifications/app-store", token: nil, json: ServiceRouterTests.notification("REFUND", transactions: [Self.refunded])).status == 200)
        #expect(Self.readable(second) == false)
        #expect(Self.eventually { Self.readable(first) == false })
    }

    @Test func issuePublishedThroughOne_isServedByTheOther() throws {
        let first = try ServiceHarness(backend: .postgreSQL)
        defer { first.close() }
        let second = try ServiceHarness(path: first.path)
        defer { second.close(remove: false) }
        #expect(first.call("POST", "/v1/users/gina/receipts", body: try ServiceHarness.example("table-6-1")).status == 200)
        #expect(second.call("GET", "/v1/users/gina/issues/the-monthly/2020-07-special?at=2020-07-16T00:00:00Z").status == 404)
        let body = #"{"title": "July special", "published": "2020-07-15T00:00:00Z"}"#
        #expect(first.call("PUT", "/v1/publications/the-monthly/issues/2020-07-special", token: "admin-token", json: body).status == 200)
        #expect(Self.eventually { ServiceRouterTests.readable(second, "gina", "2020-07-special", at: "2020-07-16T00:00:00Z") == true })
    }

    /// Both services' listening connections are cut while new connections are refused: the
    /// metric says so, and every answer reads the change log, so a refund through one is seen by
    /// the other at once. Once connections are allowed again, the listeners are back.
    @Test func whileTheListeningConnectionIsDown_answersReadTheChangeLog() throws {
        let first = try ServiceHarness(backend: .postgreSQL)
        defer { first.close() }
        let second = try ServiceHarness(path: first.path)
        defer { second.close(remove: false) }
        let up = "masthead_change_notifications_up 1"
        #expect(second.call("GET", "/metrics").body.contains(up))
        #expect(first.call("POST", "/v1/users/rita/receipts", json: #"{"status": 0, "latest_receipt_info": [\#(Self.subscription)]}"#).status == 200)
        #expect(Self.eventually { Self.readable(second) == true })
        let database = try #require(first.path.split(separator: "/").last.map(String.init))
        let admin = try PostgreSQLConnection(String(first.path.dropLast(database.count)) + "postgres")
        try admin.execute("ALTER DATABASE \(database) ALLOW_CONNECTIONS false")
        try admin.run("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND query LIKE 'LISTEN%'", [.text(database)])
        #expect(Self.eventually { second.call("GET", "/metrics").body.contains("masthead_change_notifications_up 0") })
        #expect(first.call("POST", "/v1/notifications/app-store", token: nil, json: ServiceRouterTests.notification("REFUND", transactions: [Self.refunded])).status == 200)
        #expect(Self.readable(second) == false)
        try admin.execute("ALTER DATABASE \(database) ALLOW_CONNECTIONS true")
        #expect(Self.eventually { second.call("GET", "/metrics").body.contains(up) })
        #expect(Self.readable(second) == false)
    }
}
