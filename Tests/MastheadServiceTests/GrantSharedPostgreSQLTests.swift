import MastheadJSON
import MastheadService
import MastheadTestSupport
import Testing

/// Two services on one PostgreSQL database: a grant given or revoked through one changes the
/// other's answers, cached ones included, as a purchase does (the change log).
@Suite(.enabled(if: !TestPostgreSQL.isSkipped, "MASTHEAD_SKIP_POSTGRES=1"))
struct GrantSharedPostgreSQLTests {
    static func readable(_ harness: ServiceHarness, at: String) -> Bool? {
        ServiceRouterTests.readable(harness, "ben", "2020-05", at: at)
    }

    @Test func grantThroughOne_andRevocationThroughTheOther_areSeenByBoth() throws {
        let first = try ServiceHarness(backend: .postgreSQL)
        defer { first.close() }
        let second = try ServiceHarness(path: first.path)
        defer { second.close(remove: false) }
        // Ben's subscription lapsed from Apr 20 to Jun 17 (Table 6-1): both know him, and answer
        // (and cache) May's issue as not readable first.
        #expect(first.call("POST", "/v1/users/ben/receipts", body: try ServiceHarness.example("table-6-1")).status == 200)
        #expect(SharedPostgreSQLTests.eventually { ServiceRouterTests.readable(second, "ben", "2020-06", at: "2020-07-03T00:00:00Z") == true })
        #expect(Self.readable(first, at: "2020-07-03T00:00:00Z") == false)
        #expect(Self.readable(second, at: "2020-07-03T00:00:00Z") == false)
        let put = first.call("PUT", "/v1/users/ben/grants/mg-1", token: "admin-token", json: GrantRouteTests.makeGood)
        #expect(put.status == 201)
        #expect(Self.readable(first, at: "2020-07-03T00:00:00Z") == true)
        #expect(SharedPostgreSQLTests.eventually { Self.readable(second, at: "2020-07-03T00:00:00Z") == true })
        #expect(second.call("GET", "/v1/users/ben/grants", token: "admin-token").json?["grants"]?.count == 1)
        #expect(second.call("DELETE", "/v1/users/ben/grants/mg-1", token: "admin-token").status == 200)
        #expect(Self.readable(second, at: "2020-07-03T00:00:00Z") == false)
        #expect(SharedPostgreSQLTests.eventually { Self.readable(first, at: "2020-07-03T00:00:00Z") == false })
        // A grant id is one user's across instances too.
        let taken = second.call("PUT", "/v1/users/ana/grants/mg-1", token: "admin-token", json: GrantRouteTests.makeGood)
        #expect(taken.status == 409)
    }
}
