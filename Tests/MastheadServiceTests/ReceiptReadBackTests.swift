import Foundation
import MastheadJSON
@testable import MastheadService
import MastheadSQLite
import MastheadStorage
import Synchronization
import Testing

/// A receipt is answered after its commit; reading the entitlements back is a separate read that
/// may fail, and must not turn a stored receipt into a "could not be stored".
struct ReceiptReadBackTests {
    @Test func receipt_isAnsweredAsStored_whenReadingItBackFails() throws {
        let harness = try ServiceHarness()
        defer { harness.close() }
        // Only the reader connection sees a `users` table without the column it reads: its reads fail.
        try harness.service.reader.withLock { reader in try (reader.store as! SQLiteStore).database.execute("CREATE TEMP TABLE users (unrelated INTEGER)") }
        let answer = harness.call("POST", "/v1/users/uma/receipts", body: try ServiceHarness.example("table-6-1"))
        #expect(answer.status == 200)
        #expect(answer.json?["stored"]?.bool == true)
        #expect(answer.json?["user_id"]?.string == "uma")
        #expect(answer.json?["entitlements_unavailable"]?.string?.contains("no such column: user_id") == true, "\(answer.body)")
        try harness.service.reader.withLock { reader in try (reader.store as! SQLiteStore).database.execute("DROP TABLE temp.users") }
        #expect(ServiceRouterTests.readable(harness, "uma", "2020-06", at: "2020-07-02T00:00:00Z") == true)
        // A failed read is not a failed write.
        #expect(harness.call("GET", "/health", token: nil).status == 200)
    }
}
