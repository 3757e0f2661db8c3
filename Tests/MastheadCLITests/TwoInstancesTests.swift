import Foundation
import Glibc
import MastheadPostgreSQL
import MastheadStorage
import MastheadTestSupport
import Synchronization
import Testing

/// Two `masthead serve` processes on one PostgreSQL database, as behind a load balancer.
@Suite(.enabled(if: !TestPostgreSQL.isSkipped, "MASTHEAD_SKIP_POSTGRES=1"))
struct TwoInstancesTests {
    static let authorization = ["Authorization": "Bearer api-token"]
    static let check = "/v1/users/rita/issues/the-monthly/2020-07?at=2020-07-02T00:00:00Z"
    static let subscription = #"{"transaction_id": "r1", "original_transaction_id": "r1", "product_id": "com.example.monthly", "purchase_date_ms": "1592395200000", "expires_date_ms": "1594987200000"}"#
    static let refund = #"""
        {"notification_type": "REFUND", "password": "shared-secret", "environment": "PROD", "unified_receipt": {"status": 0, "environment": "Production",
         "latest_receipt_info": [{"transaction_id": "r1", "original_transaction_id": "r1", "product_id": "com.example.monthly",
         "purchase_date_ms": "1592395200000", "expires_date_ms": "1594987200000", "cancellation_date_ms": "1592611200000"}]}}
        """#

    /// The check's `readable` flag as `client` gets it.
    static func readable(_ client: TestClient) -> Bool? {
        guard let body = client.request("GET", check, headers: authorization)?.body else { return nil }
        if body.contains(#""readable":true"#) { return true }
        return body.contains(#""readable":false"#) ? false : nil
    }

    /// Whether `condition` holds within a second, polled every millisecond.
    static func withinASecond(_ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(1)
        while Date() < deadline {
            if condition() { return true }
            usleep(1000)
        }
        return condition()
    }

    @Test func receiptToOne_andRefundToTheOther_areSeenByBoth_withinASecond_andIssuesPublishedThroughOne_areServedByBoth() throws {
        let database = try TestPostgreSQL.freshDatabase()
        let first = try ServerProcess(database: database)
        let second = try ServerProcess(database: database)
        defer {
            _ = first.stop(signal: SIGTERM)
            _ = second.stop(signal: SIGTERM)
        }
        let one = try TestClient(port: first.port)
        let other = try TestClient(port: second.port)
        // Cached as not readable by the second before the receipt.
        #expect(Self.readable(other) == false)
        let receipt = Array(#"{"status": 0, "latest_receipt_info": [\#(Self.subscription)]}"#.utf8)
        #expect(one.request("POST", "/v1/users/rita/receipts", headers: Self.authorization, body: receipt)?.status == 200)
        #expect(Self.withinASecond { Self.readable(one) == true && Self.readable(other) == true })
        #expect(other.request("POST", "/v1/notifications/app-store", body: Array(Self.refund.utf8))?.status == 200)
        #expect(Self.withinASecond { Self.readable(one) == false && Self.readable(other) == false })

        let special = "/v1/users/rita/issues/the-monthly/2020-07-special?at=2020-07-16T00:00:00Z"
        #expect(other.request("GET", special, headers: Self.authorization)?.status == 404)
        let issue = Array(#"{"title": "July special", "published": "2020-07-15T00:00:00Z", "free": true}"#.utf8)
        #expect(one.request("PUT", "/v1/publications/the-monthly/issues/2020-07-special", headers: ["Authorization": "Bearer admin-token"], body: issue)?.status == 200)
        #expect(Self.withinASecond { other.request("GET", special, headers: Self.authorization)?.status == 200 })
        let listed = other.request("GET", "/v1/publications/the-monthly/issues", headers: Self.authorization)?.body ?? ""
        #expect(listed.contains("2020-07-special"))
    }

    /// Notifications posted to both instances by 8 clients; one instance is SIGKILLed in the
    /// middle: every notification answered 200 by either is in the database, and the other
    /// instance goes on answering.
    @Test func sigkillOfOneInstance_losesNoAcknowledgedWrite_andTheOtherKeepsServing() throws {
        let database = try TestPostgreSQL.freshDatabase()
        let killed = try ServerProcess(database: database)
        let survivor = try ServerProcess(database: database)
        defer { _ = survivor.stop(signal: SIGTERM) }
        let acknowledged = Mutex<Set<Int>>([])
        let clients = 8
        let perClient = 400
        let group = DispatchGroup()
        for client in 0..<clients {
            let port = client % 2 == 0 ? killed.port : survivor.port
            DispatchQueue.global().async(group: group) {
                guard let connection = try? TestClient(port: port, timeoutMilliseconds: 3000) else { return }
                for round in 0..<perClient {
                    let index = client * perClient + round
                    guard let response = connection.request("POST", "/v1/notifications/app-store", body: ServeCommandTests.notification(index)) else { return }
                    if response.status == 200 { acknowledged.withLock { _ = $0.insert(index) } }
                }
            }
        }
        while acknowledged.withLock({ $0.count }) < 300 { usleep(2000) }
        _ = killed.stop(signal: SIGKILL)
        group.wait()
        let answered = acknowledged.withLock { $0 }
        #expect(answered.count < clients * perClient, "the kill came too late to test anything")
        #expect(answered.contains { ($0 / perClient) % 2 == 1 && $0 % perClient == perClient - 1 }, "the survivor stopped answering")
        let store = try PostgreSQLStore(url: database, readOnly: true)
        let ids = try store.connection.rows("SELECT transaction_id FROM transactions", []) { row throws(PostgreSQLError) in try row.text(0) }
        let stored = Set(ids.compactMap { Int($0.dropFirst()) })
        #expect(answered.isSubset(of: stored), "lost: \(answered.subtracting(stored).sorted().prefix(10))")
        #expect(try store.notificationCount() >= answered.count)
        let client = try TestClient(port: survivor.port)
        #expect(client.request("GET", "/health")?.status == 200)
    }
}
