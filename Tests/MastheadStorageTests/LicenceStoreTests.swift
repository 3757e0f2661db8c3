import Foundation
import Masthead
import MastheadPostgreSQL
import MastheadSQLite
@testable import MastheadStorage
import MastheadTestSupport
import Testing

/// Licences and their memberships on both backends: seats counted, each membership its own span,
/// members' grants derived with their history.
struct LicenceStoreTests {
    static func day(_ text: String) -> Instant { GiftCodeStoreTests.day(text) }
    static let licence = Licence(
        licenceId: "uni", publications: ["the-monthly"], access: .archive, start: day("2020-01-01"), end: day("2021-01-01"), seats: 2)

    static func put(_ store: any EntitlementStore, _ licence: Licence = licence) throws -> [String] {
        try store.inTransaction { () throws(StorageError) in try store.putLicence(licence, now: day("2020-01-01")) }
    }

    static func join(_ store: any EntitlementStore, _ userId: String, at now: String, licence: String = "uni") throws -> LicenceJoin {
        try store.inTransaction { () throws(StorageError) in try store.joinLicence(licence, userId: userId, now: day(now)) }
    }

    static func leave(_ store: any EntitlementStore, _ userId: String, at now: String) throws -> LicenceMembership? {
        try store.inTransaction { () throws(StorageError) in try store.leaveLicence("uni", userId: userId, now: day(now)) }
    }

    static func span(_ id: String, _ start: String, _ end: String?) -> Grant {
        Grant(
            grantId: id, source: "licence", scope: .span(publications: ["the-monthly"], access: .archive, window: nil), start: day(start),
            end: end.map(day))
    }

    @Test(arguments: StoreBackend.tested) func join_countsSeats_andMembersHaveTheLicenceSpan(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        #expect(try Self.join(store, "ana", at: "2020-02-01") == .unknownLicence)
        #expect(try Self.put(store).isEmpty)
        #expect(try Self.join(store, "ana", at: "2019-12-01") == .joined(LicenceMembership(licenceId: "uni", userId: "ana", number: 1, joined: Self.day("2019-12-01"), left: nil)))
        #expect(try Self.join(store, "ana", at: "2020-03-01") == .alreadyMember(LicenceMembership(licenceId: "uni", userId: "ana", number: 1, joined: Self.day("2019-12-01"), left: nil)))
        guard case .joined = try Self.join(store, "bo", at: "2020-02-01") else { Issue.record("bo did not join"); return }
        #expect(try Self.join(store, "cy", at: "2020-02-01") == .full(seats: 2))
        #expect(try store.licence("uni")?.members == 2)
        // From the licence's start (joined before it) to its end.
        #expect(try store.history(forUser: "ana").grants == [Self.span("licence:uni", "2020-01-01", "2021-01-01")])
        #expect(try store.history(forUser: "cy").grants.isEmpty)
        #expect(try Self.join(store, "cy", at: "2021-01-01") == .ended(Self.day("2021-01-01")))
    }

    @Test(arguments: StoreBackend.tested) func leaving_andRejoining_keepsEachMembershipsOwnSpan_andFreesTheSeat(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        _ = try Self.put(store)
        _ = try Self.join(store, "ana", at: "2020-02-01")
        _ = try Self.join(store, "bo", at: "2020-02-01")
        #expect(try Self.leave(store, "ana", at: "2020-04-01")?.left == Self.day("2020-04-01"))
        // A second DELETE answers the membership unchanged.
        #expect(try Self.leave(store, "ana", at: "2020-05-01")?.left == Self.day("2020-04-01"))
        #expect(try Self.leave(store, "cy", at: "2020-05-01") == nil)
        #expect(try store.licence("uni")?.members == 1)
        guard case .joined(let again) = try Self.join(store, "ana", at: "2020-08-01") else { Issue.record("not joined"); return }
        #expect(again.number == 2)
        #expect(try Self.join(store, "cy", at: "2020-08-02") == .full(seats: 2))
        #expect(
            try store.history(forUser: "ana").grants == [
                Self.span("licence:uni", "2020-02-01", "2020-04-01"), Self.span("licence:uni#2", "2020-08-01", "2021-01-01"),
            ])
        let page = try store.licenceMemberships("uni", after: nil, limit: 1)
        #expect(page.map(\.userId) == ["ana", "ana"])
        #expect(try store.licenceMemberships("uni", after: "ana", limit: 10).map(\.userId) == ["bo"])
    }

    @Test(arguments: StoreBackend.tested) func changingTheLicence_changesEveryMembersSpan_andNamesThem(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        _ = try Self.put(store)
        _ = try Self.join(store, "ana", at: "2020-02-01")
        _ = try Self.join(store, "bo", at: "2020-02-01")
        _ = try Self.leave(store, "bo", at: "2020-03-01")
        var shorter = Self.licence
        shorter.end = Self.day("2020-06-01")
        shorter.seats = 1
        #expect(try Self.put(store, shorter) == ["ana", "bo"])
        #expect(try store.history(forUser: "ana").grants == [Self.span("licence:uni", "2020-02-01", "2020-06-01")])
        // Fewer seats than members keeps them, and refuses newcomers.
        var wider = shorter
        wider.end = nil
        wider.seats = 2
        _ = try Self.put(store, wider)
        _ = try Self.join(store, "bo", at: "2020-04-01")
        #expect(try store.licence("uni")?.members == 2)
        #expect(try Self.put(store, shorter) == ["ana", "bo"])
        #expect(try Self.join(store, "cy", at: "2020-04-01") == .full(seats: 1))
        #expect(try store.licence("uni")?.licence == shorter)
    }

    /// The gift code and licence migration (SQLite's 12th, PostgreSQL's 8th): a database at the
    /// schema before keeps its users and grants, and takes licences and gift codes.
    @Test(arguments: StoreBackend.tested) func giftAndLicenceMigration_keepsUsersAndGrants(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let latest = try fixture.migrate(sqlite: 11, postgreSQL: 7)
        try fixture.execute("""
            INSERT INTO users VALUES ('ana', 0);
            INSERT INTO grants (grant_id, user_id, source, kind, publications, access, start_ms, written_ms)
            VALUES ('g-1', 'ana', 'print', 'span', '["the-monthly"]', 'archive', 0, 0);
            """)
        let store = try fixture.open()
        #expect(try fixture.scalar("SELECT max(version) FROM migrations") == .integer(Int64(latest)))
        _ = try Self.put(store)
        guard case .joined = try Self.join(store, "ana", at: "2020-02-01") else { Issue.record("ana did not join"); return }
        #expect(try store.history(forUser: "ana").grants.map(\.grantId) == ["g-1", "licence:uni"])
    }
}
