import Foundation
import Masthead
import MastheadFormats
import MastheadStorage
import MastheadTestSupport
import Testing

/// `masthead check --database` and `masthead audit --database` read a reader's Google Play orders
/// through their stored history, as any purchase (R18): Table 6-1 stored as Play orders answers
/// every row as the App Store receipt of Table 6-1 does.
struct GooglePlayDatabaseTests {
    static func at(_ text: String) -> Instant { Instant(milliseconds: Int64(ISO8601DateFormatter().date(from: text)!.timeIntervalSince1970 * 1000)) }

    static func order(_ token: String, _ orderId: String, _ start: String, _ expiry: String) -> GooglePlayOrder {
        GooglePlayOrder(
            purchaseToken: token, orderId: orderId, productId: "com.example.monthly", start: at(start), expiry: at(expiry), environment: .production,
            observed: at(start))
    }

    /// A database of `backend` holding alice's Table 6-1 receipt and pat's Table 6-1 as Google Play
    /// orders: a purchase Feb 20 renewed Mar 20 and lapsing Apr 20 (token `t1`), and a
    /// resubscription Jun 17 through a token linked to it (`t2`), stored before pat links it.
    static func database(_ backend: StoreBackend) throws -> String {
        let location = try backend.freshDatabase()
        let store = try StoreLocation(location).open()
        let catalog = try CatalogDecoder().decode(
            Array(try Data(contentsOf: Tool.root.appendingPathComponent("Catalog/the-monthly/catalog.json"))), file: "catalog.json")
        let receipt = Array(try Data(contentsOf: Tool.root.appendingPathComponent("Catalog/the-monthly/receipts/table-6-1.json")))
        let history = try ReceiptDecoder(catalog: catalog).decode(receipt).history
        let first = GooglePlayObservation(
            purchaseToken: "t1", linkedPurchaseToken: nil, state: .expired, acknowledged: true, obfuscatedExternalAccountId: nil,
            playProductId: "monthly", orders: [
                order("t1", "GPA.1", "2020-02-20T12:00:00Z", "2020-03-20T12:00:00Z"), order("t1", "GPA.1..0", "2020-03-20T11:58:00Z", "2020-04-20T12:00:00Z"),
            ], unknownProductIds: [])
        let second = GooglePlayObservation(
            purchaseToken: "t2", linkedPurchaseToken: "t1", state: .active, acknowledged: true, obfuscatedExternalAccountId: nil,
            playProductId: "monthly", orders: [order("t2", "GPA.2", "2020-06-17T12:00:00Z", "2020-07-17T12:00:00Z")], unknownProductIds: [])
        try store.inTransaction { () throws(StorageError) in
            try store.save(transactions: history.transactions, renewals: history.renewals)
            _ = try store.link(userId: "alice", transactions: history.transactions, latestReceipt: nil, restore: .transfer, now: Instant(milliseconds: 0))
            for observation in [first, second] {
                _ = try store.storeGooglePlayObservation(observation, packageName: "com.example.monthly", kind: .subscription, body: [], now: at("2020-07-01T00:00:00Z"))
            }
            #expect(try store.linkGooglePlayPurchase(token: "t2", to: "pat") == .linked)
        }
        return location
    }

    @Test(arguments: StoreBackend.tested) func check_readsPlayOrders_answeringTable61AsTheReceipt(backend: StoreBackend) throws {
        let database = try Self.database(backend)
        for row in Table61.rows {
            let play = try StoredReaderTests.check(database, "pat", at: row.at, ["--format", "json"])
            #expect(play.status == 0, "\(play.errors)")
            let decisions = try #require(try StoredReaderTests.decisions(json: play.output).first)
            #expect(decisions.state == row.state, "\(row.at)")
            #expect(decisions.issues.filter { $0.hasSuffix(" yes") } == row.readable.map { "\($0) yes" }, "\(row.at)")
            let appStore = try StoredReaderTests.check(database, "alice", at: row.at)
            #expect(try StoredReaderTests.decisions(text: StoredReaderTests.check(database, "pat", at: row.at).output) == StoredReaderTests.decisions(text: appStore.output))
        }
    }

    @Test(arguments: StoreBackend.tested) func auditDatabase_readsPlayOrders_asTheReceipt(backend: StoreBackend) throws {
        let database = try Self.database(backend)
        let audit = try Tool.run(["audit", "--catalog", "Catalog/the-monthly", "--at", "2020-07-02T00:00:00Z", "--database", database])
        #expect(audit.status == 0, "\(audit.errors)")
        let lines = audit.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 2)
        let alice = try #require(lines.first { $0.contains("\"alice\"") })
        let pat = try #require(lines.first { $0.contains("\"pat\"") })
        #expect(pat == alice.replacingOccurrences(of: "\"alice\"", with: "\"pat\""))
    }
}
