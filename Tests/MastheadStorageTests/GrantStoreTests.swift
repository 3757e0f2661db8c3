import Foundation
import Masthead
import MastheadPostgreSQL
import MastheadSQLite
@testable import MastheadStorage
import MastheadTestSupport
import Testing

/// The publisher's grants (R17) in the store, on both backends: one grant per grant id across the
/// store, ids by their bytes, corrections, revocations, batches and the change log.
struct GrantStoreTests {
    static func at(_ milliseconds: Int64) -> Instant { Instant(milliseconds: milliseconds) }

    static func span(_ grantId: String, source: String = "print", publications: [String] = ["weekly"], end: Int64? = 2000) -> Grant {
        Grant(
            grantId: grantId, source: source, scope: .span(publications: publications, access: .archive, window: nil), start: at(1000),
            end: end.map(at))
    }

    /// Whether two grant lists are the same to the byte.
    static func identical(_ a: [Grant], _ b: [Grant]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { UserGrant(userId: "", grant: $0).isIdentical(to: UserGrant(userId: "", grant: $1)) }
    }

    @Test(arguments: StoreBackend.tested) func putGrant_addsThenLeavesUnchangedThenChanges_comparingBytes(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        let grant = Self.span("g-1", publications: ["caf\u{E9}"])
        #expect(try store.inTransaction { () throws(StorageError) in try store.putGrant(grant, userId: "ana", now: Self.at(10)) } == .added)
        #expect(try store.inTransaction { () throws(StorageError) in try store.putGrant(grant, userId: "ana", now: Self.at(20)) } == .unchanged)
        // The same publication in another Unicode spelling is another publication: a change.
        let respelt = Self.span("g-1", publications: ["cafe\u{301}"])
        #expect(try store.inTransaction { () throws(StorageError) in try store.putGrant(respelt, userId: "ana", now: Self.at(30)) } == .changed)
        #expect(Self.identical(try store.grants(forUser: "ana"), [respelt]))
        var corrected = respelt
        corrected.end = nil
        corrected.revokedAt = Self.at(1500)
        #expect(try store.inTransaction { () throws(StorageError) in try store.putGrant(corrected, userId: "ana", now: Self.at(40)) } == .changed)
        #expect(Self.identical(try store.history(forUser: "ana").grants, [corrected]))
        #expect(try fixture.scalar("SELECT written_ms FROM grants WHERE grant_id = 'g-1'") == .integer(40))
        #expect(try store.userExists("ana"))
        #expect(try store.userIds(after: nil, limit: 10) == ["ana"])
    }

    @Test(arguments: StoreBackend.tested) func issueAndStreamingGrants_readBackAsStored(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        let issues = Grant(grantId: "m-1", source: "makeGood", scope: .issues(publication: "weekly", issueIds: ["2020-03", "2020-\"04\""]), start: Self.at(5))
        let streaming = Grant(
            grantId: "c-1", source: "comp", scope: .span(publications: ["weekly", "daily"], access: .streaming, window: 3), start: Self.at(5))
        _ = try store.inTransaction { () throws(StorageError) in
            (try store.putGrant(issues, userId: "ana", now: Self.at(10)), try store.putGrant(streaming, userId: "ana", now: Self.at(10)))
        }
        #expect(Self.identical(try store.grants(forUser: "ana"), [streaming, issues]))
        #expect(try store.grants(forUser: "bo").isEmpty)
    }

    @Test(arguments: StoreBackend.tested) func putGrant_refusesAGrantIdAnotherUserHolds_byBytes(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        _ = try store.inTransaction { () throws(StorageError) in try store.putGrant(Self.span("g-1"), userId: "caf\u{E9}", now: Self.at(10)) }
        #expect(throws: StorageError.grantBelongsToAnotherUser(grantId: "g-1", userId: "caf\u{E9}")) {
            _ = try store.inTransaction { () throws(StorageError) in try store.putGrant(Self.span("g-1", end: nil), userId: "cafe\u{301}", now: Self.at(20)) }
        }
        #expect(try store.grants(forUser: "cafe\u{301}").isEmpty)
        #expect(Self.identical(try store.grants(forUser: "caf\u{E9}"), [Self.span("g-1")]))
        // Another spelling of the grant id is another grant.
        #expect(try store.inTransaction { () throws(StorageError) in try store.putGrant(Self.span("g-\u{E9}"), userId: "bo", now: Self.at(30)) } == .added)
        #expect(try store.inTransaction { () throws(StorageError) in try store.putGrant(Self.span("g-e\u{301}"), userId: "cy", now: Self.at(30)) } == .added)
    }

    @Test(arguments: StoreBackend.tested) func revokeGrant_setsRevokedAtOnce_keepsTheRecord_andIgnoresOtherUsers(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        _ = try store.inTransaction { () throws(StorageError) in try store.putGrant(Self.span("g-1"), userId: "ana", now: Self.at(10)) }
        #expect(try store.inTransaction { () throws(StorageError) in try store.revokeGrant("g-1", userId: "bo", now: Self.at(20)) } == nil)
        #expect(try store.inTransaction { () throws(StorageError) in try store.revokeGrant("g-2", userId: "ana", now: Self.at(20)) } == nil)
        var revoked = Self.span("g-1")
        revoked.revokedAt = Self.at(1500)
        let first = try #require(try store.inTransaction { () throws(StorageError) in try store.revokeGrant("g-1", userId: "ana", now: Self.at(1500)) })
        #expect(first.write == .changed)
        #expect(Self.identical([first.grant], [revoked]))
        let second = try #require(try store.inTransaction { () throws(StorageError) in try store.revokeGrant("g-1", userId: "ana", now: Self.at(1800)) })
        #expect(second.write == .unchanged)
        #expect(Self.identical([second.grant], [revoked]))
        #expect(Self.identical(try store.grants(forUser: "ana"), [revoked]))
    }

    @Test(arguments: StoreBackend.tested) func applyGrants_answersEachEntry_andLogsEachChangedUserOnce(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        let batch = [
            UserGrant(userId: "ana", grant: Self.span("g-1")), UserGrant(userId: "bo", grant: Self.span("g-2")),
            UserGrant(userId: "bo", grant: Self.span("g-1")), UserGrant(userId: "ana", grant: Self.span("g-3")),
            UserGrant(userId: "ana", grant: Self.span("g-1")),
        ]
        let position = try store.changeLogPosition()
        let first = try store.inTransaction { () throws(StorageError) in try store.applyGrants(batch, now: Self.at(10), origin: 7) }
        #expect(first.map(Self.outcome) == ["added", "added", "grant g-1 belongs to another user", "added", "unchanged"])
        #expect(try store.changes(after: position, notFrom: 0).changes == [.user("ana"), .user("bo")])
        #expect(try store.changes(after: position, notFrom: 7).changes.isEmpty)
        let again = try store.changeLogPosition()
        let second = try store.inTransaction { () throws(StorageError) in try store.applyGrants(batch, now: Self.at(20), origin: 7) }
        #expect(second.map(Self.outcome) == ["unchanged", "unchanged", "grant g-1 belongs to another user", "unchanged", "unchanged"])
        #expect(try store.changes(after: again, notFrom: 0).changes.isEmpty)
        #expect(try store.grants(forUser: "ana").map(\.grantId) == ["g-1", "g-3"])
    }

    /// A batch inserts new grants before reading; an entry refused there (another user's grant id)
    /// still records nothing, not even its user, and the entries after it are judged as ever.
    @Test(arguments: StoreBackend.tested) func applyGrants_entryRefusedAmongNewOnes_recordsNotEvenItsUser(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        _ = try store.inTransaction { () throws(StorageError) in try store.putGrant(Self.span("g-1"), userId: "ana", now: Self.at(10)) }
        let batch = [
            UserGrant(userId: "bo", grant: Self.span("g-2")), UserGrant(userId: "cy", grant: Self.span("g-1")),
            UserGrant(userId: "dee", grant: Self.span("g-3")), UserGrant(userId: "ana", grant: Self.span("g-1")),
            UserGrant(userId: "eve", grant: Self.span("g-1", end: nil)), UserGrant(userId: "bo", grant: Self.span("g-2", end: nil)),
        ]
        let position = try store.changeLogPosition()
        let outcomes = try store.inTransaction { () throws(StorageError) in try store.applyGrants(batch, now: Self.at(20), origin: 7) }
        #expect(
            outcomes.map(Self.outcome) == [
                "added", "grant g-1 belongs to another user", "added", "unchanged", "grant g-1 belongs to another user", "changed",
            ])
        #expect(try store.userIds(after: nil, limit: 10) == ["ana", "bo", "dee"])
        #expect(try store.changes(after: position, notFrom: 0).changes == [.user("bo"), .user("dee")])
        #expect(Self.identical(try store.grants(forUser: "ana"), [Self.span("g-1")]))
        #expect(Self.identical(try store.grants(forUser: "bo"), [Self.span("g-2", end: nil)]))
    }

    @Test(arguments: StoreBackend.tested) func revokeGrants_revokesOnlyTheSourcesLiveGrantsNotKept(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        var lapsed = Self.span("g-4")
        lapsed.revokedAt = Self.at(1200)
        _ = try store.inTransaction { () throws(StorageError) in
            try store.applyGrants(
                [
                    UserGrant(userId: "ana", grant: Self.span("g-1")), UserGrant(userId: "bo", grant: Self.span("g-2")),
                    UserGrant(userId: "ana", grant: Self.span("g-3", source: "comp")), UserGrant(userId: "cy", grant: lapsed),
                    UserGrant(userId: "cy", grant: Self.span("g-5", source: "Print")),
                ], now: Self.at(10), origin: 7)
        }
        let position = try store.changeLogPosition()
        let revoked = try store.inTransaction { () throws(StorageError) in
            try store.revokeGrants(source: "print", keeping: [ExactKey("g-1")], now: Self.at(1600), origin: 7)
        }
        #expect(revoked.map(\.grantId) == ["g-2"])
        #expect(revoked.map(\.userId) == ["bo"])
        #expect(try store.changes(after: position, notFrom: 0).changes == [.user("bo")])
        #expect(try store.grants(forUser: "bo").map(\.revokedAt) == [Self.at(1600)])
        #expect(try store.grants(forUser: "ana").map(\.revokedAt) == [nil, nil])
        #expect(try store.grants(forUser: "cy").map(\.revokedAt) == [Self.at(1200), nil])
    }

    /// The grants migration (SQLite's 11th, PostgreSQL's 7th): a database at the schema before
    /// keeps its users and histories, which then carry the grants stored.
    @Test(arguments: StoreBackend.tested) func grantsMigration_keepsHistories_andAddsGrantsToThem(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let latest = try fixture.migrate(sqlite: 10, postgreSQL: 6)
        try fixture.execute("""
            INSERT INTO users VALUES ('u', 0);
            INSERT INTO subscriptions VALUES ('production', 'a', 'u', NULL, 0);
            INSERT INTO transactions (environment, transaction_id, original_transaction_id, product_id, purchase_ms, expires_ms,
                cancellation_ms, is_upgraded, is_trial, is_intro_offer)
            VALUES ('production', 'a', 'a', 'monthly', 0, 1000, NULL, false, false, false);
            """)
        let store = try fixture.open()
        #expect(try fixture.scalar("SELECT max(version) FROM migrations") == .integer(Int64(latest)))
        #expect(try store.history(forUser: "u").transactions.map(\.transactionId) == ["a"])
        #expect(try store.history(forUser: "u").grants.isEmpty)
        _ = try store.inTransaction { () throws(StorageError) in try store.putGrant(Self.span("g-1"), userId: "u", now: Self.at(10)) }
        let history = try store.history(forUser: "u")
        #expect(history.transactions.map(\.transactionId) == ["a"])
        #expect(Self.identical(history.grants, [Self.span("g-1")]))
    }

    static func outcome(_ result: Result<GrantWrite, StorageError>) -> String {
        switch result {
        case .success(let write): write.rawValue
        case .failure(let error): "\(error)"
        }
    }
}
