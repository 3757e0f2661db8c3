import Masthead
import MastheadJSON
import MastheadPostgreSQL
@testable import MastheadService
import MastheadSQLite
@testable import MastheadStorage
import MastheadTestSupport
import Testing

/// A miss reads a user's history in one statement when their row holds it, and in a snapshot of
/// the tables otherwise: the same history either way, nil for an unknown user, and a corrupt
/// row's error naming the user.
struct KnownUserHistoryServiceTests {
    /// Runs SQL on the harness's database through a connection of its own.
    static func execute(_ harness: ServiceHarness, _ backend: StoreBackend, _ sql: String) throws {
        switch backend {
        case .sqlite: try Database(path: harness.path).execute(sql)
        case .postgreSQL: try PostgreSQLConnection(harness.path).execute(sql)
        }
    }

    @Test(arguments: StoreBackend.tested)
    func history_withAndWithoutTheRow_isTheSame(backend: StoreBackend) throws {
        let harness = try ServiceHarness(backend: backend)
        defer { harness.close() }
        #expect(harness.call("POST", "/v1/users/ana/receipts", json: CacheInvalidationTests.receipt("a1")).status == 200)
        let fromRow = try #require(try harness.service.history(forUser: "ana"))
        #expect(fromRow.transactions.map(\.transactionId) == ["a1"])
        #expect(try harness.service.history(forUser: "nobody") == nil)

        try Self.execute(harness, backend, "DELETE FROM user_histories")
        let fromTables = try #require(try harness.service.history(forUser: "ana"))
        #expect(StoredHistory.bytes(fromTables) == StoredHistory.bytes(fromRow))
        #expect(try harness.service.history(forUser: "nobody") == nil)
        #expect(ServiceRouterTests.readable(harness, "ana", "2020-07", at: "2020-07-02T00:00:00Z") == true)
        #expect(harness.call("GET", "/v1/users/nobody/issues/the-monthly/2020-07?at=2020-07-02T00:00:00Z").json?["readable"]?.bool == false)

        // A corrupt row is refused, naming the user; the check answers 503 rather than a guess.
        #expect(harness.call("POST", "/v1/users/ben/receipts", json: CacheInvalidationTests.receipt("b1")).status == 200)
        try Self.execute(harness, backend, "UPDATE user_histories SET history = substr(history, 1, 5) WHERE user_id = 'ben'")
        #expect {
            _ = try harness.service.history(forUser: "ben")
        } throws: { error in
            guard case StorageError.storedHistory(let userId, _) = error else { return false }
            return userId == "ben"
        }
        #expect(harness.call("GET", "/v1/users/ben/issues/the-monthly/2020-07?at=2020-07-02T00:00:00Z").status == 503)
    }
}
