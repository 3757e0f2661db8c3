import Foundation
import Masthead
import MastheadService
@testable import MastheadStorage
import MastheadSynthetic
import MastheadTestSupport
import Testing

/// Every write through the service stores the histories it changed (`user_histories`, in its
/// transaction): after each of a seeded sequence of receipts (moving subscriptions between
/// readers), notifications, grants, licences and gift codes, each reader's stored row holds
/// exactly the history the tables give, and a write refused leaves every row as it was.
struct StoredHistoryPropertyTests {
    /// The readers, as path segments and as their ids: both spellings of `café` among them.
    static let readers: [(path: String, id: String)] = [
        ("ana", "ana"), ("ben", "ben"), ("caf%C3%A9", "caf\u{E9}"), ("cafe%CC%81", "cafe\u{301}"), ("dee", "dee"),
    ]

    /// Each reader's stored row, and whether it holds what the tables give now.
    static func rows(_ store: any EntitlementStore) throws -> [(id: String, stored: [UInt8]?, matches: Bool)] {
        try readers.map { reader in
            let (stored, fromTables) =
                switch store {
                case let store as SQLiteStore: (try store.storedHistoryBytes(forUser: reader.id), StoredHistory.bytes(try store.historyFromTables(forUser: reader.id)))
                case let store as PostgreSQLStore:
                    (try store.storedHistoryBytes(forUser: reader.id), StoredHistory.bytes(try store.historyFromTables(forUser: reader.id)))
                default: throw StorageError.closed
                }
            return (reader.id, stored, stored.map { $0 == fromTables } ?? true)
        }
    }

    static func day(_ day: Int) -> String {
        let civil = CivilTime(Instant(milliseconds: Instant.millisecondsPerDay * Int64(18_262 + day)))
        return String(civil.rfc3339.prefix(10)) + "T00:00:00Z"
    }

    @Test(arguments: StoreBackend.tested)
    func everyWrite_storesTheChangedHistories_asTheTablesGiveThem(backend: StoreBackend) throws {
        let harness = try ServiceHarness(backend: backend)
        defer { harness.close() }
        let store: any EntitlementStore =
            switch backend {
            case .sqlite: try SQLiteStore(path: harness.path, readOnly: true)
            case .postgreSQL: try PostgreSQLStore(url: harness.path, readOnly: true)
            }
        var codes = try GiftCodeRouteTests.codes(harness)
        var random = SeededGenerator(seed: 26)
        var stored = 0
        for step in 0..<120 {
            let before = try Self.rows(store)
            let reader = Self.readers[random.below(Self.readers.count)]
            let original = "o\(random.below(6))"
            let start = random.below(300)
            let answer: ServiceHarness.Answer
            switch random.below(8) {
            case 0, 1:
                // A receipt: its subscription moves to the reader (`transfer`) from whoever had it.
                let transaction = ServiceRouterTests.transaction(
                    "\(original)-\(start)", original: original, from: Self.day(start), to: Self.day(start + 30),
                    cancelled: random.chance(20) ? Self.day(start + 10) : nil)
                answer = harness.call("POST", "/v1/users/\(reader.path)/receipts", json: #"{"status": 0, "latest_receipt_info": [\#(transaction)]}"#)
            case 2:
                // A notification renewing a subscription, whoever holds it.
                let transaction = ServiceRouterTests.transaction("\(original)-n\(start)", original: original, from: Self.day(start), to: Self.day(start + 30))
                answer = harness.call("POST", "/v1/notifications/app-store", token: nil, json: ServiceRouterTests.notification("DID_RENEW", transactions: [transaction]))
            case 3:
                // A grant, put again or moved to another reader (refused: a grant id is global).
                let body = #"{"source": "comp", "publications": ["the-monthly"], "access": "archive", "start": "\#(Self.day(start))", "end": "\#(Self.day(start + 40))"}"#
                answer = GrantRouteTests.put(harness, reader.path, "g\(random.below(4))", body)
            case 4:
                answer = harness.call("DELETE", "/v1/users/\(reader.path)/grants/g\(random.below(4))", token: "admin-token")
            case 5:
                // A licence changed (every member's history), or a reader joining or leaving it (two seats).
                switch random.below(3) {
                case 0:
                    answer = LicenceRouteTests.put(
                        harness, #"{"publications": ["the-monthly"], "access": "archive", "start": "\#(Self.day(start))", "seats": 2}"#)
                case 1: answer = LicenceRouteTests.join(harness, reader.path)
                default: answer = LicenceRouteTests.leave(harness, reader.path)
                }
            case 6:
                // A gift code redeemed (refused once used).
                let code = codes.isEmpty ? "0000-0000-0000-0000" : codes[random.below(codes.count)]
                answer = GiftCodeRouteTests.redeem(harness, reader.path, code)
                if answer.status == 200 { codes.removeAll { $0 == code } }
            default:
                // A grant of single issues.
                let body = #"{"source": "makeGood", "publication": "the-monthly", "issues": ["2020-0\#(1 + random.below(9))"], "start": "\#(Self.day(start))"}"#
                answer = GrantRouteTests.put(harness, reader.path, "m\(random.below(3))", body)
            }
            let after = try Self.rows(store)
            for row in after {
                #expect(row.matches, "step \(step): the stored history of \(row.id) is not the tables'")
            }
            if answer.status >= 400 {
                // Refused: every row is as it was.
                #expect(before.map(\.stored) == after.map(\.stored), "step \(step): a refused write (\(answer.status) \(answer.body)) changed a stored row")
            } else {
                #expect(answer.status == 200 || answer.status == 201 || answer.status == 204, "step \(step): \(answer.status) \(answer.body)")
            }
            stored = after.filter { $0.stored != nil }.count
        }
        #expect(stored == Self.readers.count)
        // The stored rows answer what the tables do: the same entitlements through the service.
        for reader in Self.readers {
            let fromTables: PurchaseHistory =
                switch store {
                case let store as SQLiteStore: try store.historyFromTables(forUser: reader.id)
                case let store as PostgreSQLStore: try store.historyFromTables(forUser: reader.id)
                default: PurchaseHistory()
                }
            #expect(StoredHistory.bytes(try store.history(forUser: reader.id)) == StoredHistory.bytes(fromTables))
        }
    }
}
