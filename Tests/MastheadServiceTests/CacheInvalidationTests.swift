import Foundation
import MastheadJSON
@testable import MastheadService
import MastheadSQLite
import MastheadStorage
import Synchronization
import Testing

/// A commit, by this service or another on the same file, drops the cached histories of the users
/// it changed and no others.
struct CacheInvalidationTests {
    static func receipt(_ original: String) -> String {
        let transaction = ServiceRouterTests.transaction(original, original: original, from: "2020-06-17T12:00:00Z", to: "2020-07-17T12:00:00Z")
        return #"{"status": 0, "latest_receipt_info": [\#(transaction)]}"#
    }

    @Test func writes_dropOnlyTheUsersTheyChanged() throws {
        let first = try ServiceHarness()
        defer { first.close() }
        let second = try ServiceHarness(path: first.path)
        defer { second.close(remove: false) }
        #expect(first.call("POST", "/v1/users/xena/receipts", json: Self.receipt("x1")).status == 200)
        #expect(ServiceRouterTests.readable(first, "xena", "2020-07", at: "2020-07-02T00:00:00Z") == true)
        // From here the first service's reads fail: only what it has cached can be answered.
        try first.service.reader.withLock { reader in try (reader.store as! SQLiteStore).database.execute("CREATE TEMP TABLE users (unrelated INTEGER)") }
        #expect(first.call("POST", "/v1/users/yan/receipts", json: Self.receipt("y1")).json?["stored"]?.bool == true)
        #expect(second.call("POST", "/v1/users/zed/receipts", json: Self.receipt("z1")).status == 200)
        #expect(ServiceRouterTests.readable(first, "xena", "2020-07", at: "2020-07-02T00:00:00Z") == true)
        // A write for her through the other service makes the first read her history again (and fail here).
        #expect(second.call("POST", "/v1/users/xena/receipts", json: Self.receipt("x2")).status == 200)
        #expect(first.call("GET", "/v1/users/xena/issues/the-monthly/2020-07?at=2020-07-02T00:00:00Z").status == 503)
    }
}

/// The answer cache holds at most `maxCachedUsers` users, whatever the traffic.
struct CacheBoundTests {
    @Test func cachedUsers_neverExceedTheSetting() throws {
        let harness = try ServiceHarness { $0.maxCachedUsers = 3 }
        defer { harness.close() }
        var most = 0
        for index in 0..<10 {
            let user = "reader-\(index)"
            #expect(harness.call("POST", "/v1/users/\(user)/receipts", json: CacheInvalidationTests.receipt("o\(index)")).status == 200)
            #expect(ServiceRouterTests.readable(harness, user, "2020-07", at: "2020-07-02T00:00:00Z") == true)
            let metrics = harness.call("GET", "/metrics").body
            let line = metrics.split(separator: "\n").first { $0.hasPrefix("masthead_cached_users ") }
            let cached = Int(line?.split(separator: " ").last ?? "") ?? -1
            #expect((1...3).contains(cached), "cached users: \(cached)")
            most = max(most, cached)
        }
        #expect(most == 3)
    }
}
