import Foundation
import MastheadJSON
import MastheadService
import Testing

/// Several services on one database file, as two `masthead serve` processes (or `serve` and
/// `masthead refresh`) would be: each sees what the other committed, at once.
struct SharedDatabaseTests {
    static let subscription = ServiceRouterTests.transaction("r1", original: "r1", from: "2020-06-17T12:00:00Z", to: "2020-07-17T12:00:00Z")

    @Test func refundThroughOneService_isSeenByTheOther_atOnce() throws {
        let first = try ServiceHarness()
        defer { first.close() }
        let second = try ServiceHarness(path: first.path)
        defer { second.close(remove: false) }
        #expect(first.call("POST", "/v1/users/rita/receipts", json: #"{"status": 0, "latest_receipt_info": [\#(Self.subscription)]}"#).status == 200)
        // Cached by the first service: its history, its answer and the check's body.
        #expect(ServiceRouterTests.readable(first, "rita", "2020-07", at: "2020-07-02T00:00:00Z") == true)
        #expect(ServiceRouterTests.readable(second, "rita", "2020-07", at: "2020-07-02T00:00:00Z") == true)
        let refunded = ServiceRouterTests.transaction("r1", original: "r1", from: "2020-06-17T12:00:00Z", to: "2020-07-17T12:00:00Z", cancelled: "2020-06-20T00:00:00Z")
        #expect(second.call("POST", "/v1/notifications/app-store", token: nil, json: ServiceRouterTests.notification("REFUND", transactions: [refunded])).status == 200)
        #expect(ServiceRouterTests.readable(first, "rita", "2020-07", at: "2020-07-02T00:00:00Z") == false)
        #expect(first.call("GET", "/v1/users/rita/entitlements?at=2020-07-02T00:00:00Z").json?["publications"]?.elements.first(where: { _ in true })?["readable"]?.count == 0)
        // And back: a renewal posted to the first is seen by the second.
        let renewal = ServiceRouterTests.transaction("r2", original: "r1", from: "2020-07-17T11:58:00Z", to: "2020-08-17T12:00:00Z")
        #expect(ServiceRouterTests.readable(second, "rita", "2020-08", at: "2020-08-02T00:00:00Z") == false)
        #expect(first.call("POST", "/v1/notifications/app-store", token: nil, json: ServiceRouterTests.notification("DID_RENEW", transactions: [renewal])).status == 200)
        #expect(ServiceRouterTests.readable(second, "rita", "2020-08", at: "2020-08-02T00:00:00Z") == true)
    }

    @Test func receiptLinkedThroughOneService_isSeenByTheOther_evenForAUserItHadAsked() throws {
        let first = try ServiceHarness()
        defer { first.close() }
        let second = try ServiceHarness(path: first.path)
        defer { second.close(remove: false) }
        #expect(first.call("POST", "/v1/users/sol/receipts", body: try ServiceHarness.example("table-6-1")).status == 200)
        #expect(ServiceRouterTests.readable(first, "sol", "2020-06", at: "2020-07-02T00:00:00Z") == true)
        // The second service moves the subscription to another user (restore: transfer).
        #expect(second.call("POST", "/v1/users/tom/receipts", body: try ServiceHarness.example("table-6-1")).status == 200)
        #expect(ServiceRouterTests.readable(first, "sol", "2020-06", at: "2020-07-02T00:00:00Z") == false)
        #expect(ServiceRouterTests.readable(first, "tom", "2020-06", at: "2020-07-02T00:00:00Z") == true)
    }

    @Test func issuePublishedThroughOneService_isServedByTheOther() throws {
        let first = try ServiceHarness()
        defer { first.close() }
        let second = try ServiceHarness(path: first.path)
        defer { second.close(remove: false) }
        #expect(first.call("POST", "/v1/users/gina/receipts", body: try ServiceHarness.example("table-6-1")).status == 200)
        #expect(first.call("GET", "/v1/users/gina/issues/the-monthly/2020-07-special?at=2020-07-16T00:00:00Z").status == 404)
        let body = #"{"title": "July special", "published": "2020-07-15T00:00:00Z"}"#
        #expect(second.call("PUT", "/v1/publications/the-monthly/issues/2020-07-special", token: "admin-token", json: body).status == 200)
        let issues = first.call("GET", "/v1/publications/the-monthly/issues").json?["issues"]?.elements.map { $0["id"]!.string! }
        #expect(issues?.contains("2020-07-special") == true)
        #expect(ServiceRouterTests.readable(first, "gina", "2020-07-special", at: "2020-07-16T00:00:00Z") == true)
    }

    /// `/v1/refresh-due` (and polling) read the database directly: a write committed after the
    /// reader's previous read must be in the answer.
    @Test func refreshDue_listsSubscriptionsStoredAfterThePreviousRead() throws {
        let harness = try ServiceHarness(now: "2020-07-15T00:00:00Z")
        defer { harness.close() }
        let later = ServiceRouterTests.transaction("f1", original: "f1", from: "2020-07-01T00:00:00Z", to: "2020-09-01T00:00:00Z")
        #expect(harness.call("POST", "/v1/users/fay/receipts", json: #"{"status": 0, "latest_receipt_info": [\#(later)]}"#).status == 200)
        #expect(harness.call("GET", "/v1/refresh-due?within=3d").json?["subscriptions"]?.count == 0)
        let soon = ServiceRouterTests.transaction("g1", original: "g1", from: "2020-06-16T00:00:00Z", to: "2020-07-16T00:00:00Z")
        #expect(harness.call("POST", "/v1/notifications/app-store", token: nil, json: ServiceRouterTests.notification("DID_RENEW", transactions: [soon])).status == 200)
        let due = harness.call("GET", "/v1/refresh-due?within=3d").json?["subscriptions"]?.elements.map { $0["originalTransactionId"]?.string }
        #expect(due == ["g1"])
    }

    /// Receipts through the service, each read back after its commit: the WAL is restarted by
    /// checkpoints (about 4 MB at the default 1,000 pages) instead of growing by every receipt.
    @Test func wal_staysNearCheckpointSize_afterManyReceipts() throws {
        let harness = try ServiceHarness()
        defer { harness.close() }
        let receipt = String(decoding: try ServiceHarness.example("table-6-1"), as: UTF8.self)
        for index in 0..<300 {
            let body = receipt.replacingOccurrences(of: "100000", with: "\(2_000_000 + index * 10)")
            #expect(harness.call("POST", "/v1/users/w\(index)/receipts", json: body).status == 200)
        }
        let size = try #require(try FileManager.default.attributesOfItem(atPath: harness.path + "-wal")[.size] as? Int)
        #expect(size < 6_000_000, "WAL is \(size) bytes")
    }
}
