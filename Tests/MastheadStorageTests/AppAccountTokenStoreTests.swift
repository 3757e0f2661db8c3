import Foundation
import Masthead
import MastheadSQLite
@testable import MastheadStorage
import MastheadTestSupport
import Testing

/// App account tokens: one owner each, linked idempotently, found in either case.
struct AppAccountTokenStoreTests {
    static let token = "3f2504e0-4f89-41d3-9a0c-0305e82c3301"
    static let other = "6ba7b810-9dad-11d1-80b4-00c04fd430c8"

    @Test(arguments: [
        ("3F2504E0-4F89-41D3-9A0C-0305E82C3301", "3f2504e0-4f89-41d3-9a0c-0305e82c3301"),
        ("3f2504e0-4F89-41d3-9A0C-0305e82c3301", "3f2504e0-4f89-41d3-9a0c-0305e82c3301"),
        ("00000000-0000-0000-0000-000000000000", "00000000-0000-0000-0000-000000000000"),
    ])
    func canonical_isTheLowerCase_ofAUUID(text: String, canonical: String) {
        #expect(AppAccountToken.canonical(text) == canonical)
    }

    @Test(arguments: [
        "", "3f2504e0-4f89-41d3-9a0c-0305e82c330", "3f2504e0-4f89-41d3-9a0c-0305e82c33011", "{3f2504e0-4f89-41d3-9a0c-0305e82c3301}",
        "3f2504e04f8941d39a0c0305e82c3301", "3f2504e0-4f89-41d3-9a0c_0305e82c3301", "3f2504e0-4f8941d3-9a0c-0305e82c3301-",
        "3g2504e0-4f89-41d3-9a0c-0305e82c3301", " 3f2504e0-4f89-41d3-9a0c-0305e82c3301", "3f2504e0-4f89-41d3-9a0c-0305e82c330\u{0}",
        "3f2504e0-4f89-41d3-9a0c-0305e82c33é", "urn:uuid:3f2504e0-4f89-41d3-9a0c-0305e82c3301",
    ])
    func canonical_isNil_forAnythingButA8_4_4_4_12UUID(text: String) {
        #expect(AppAccountToken.canonical(text) == nil)
    }

    @Test(arguments: StoreBackend.tested) func linkAppAccountToken_recordsTheUser_andLinkingAgainChangesNothing(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        #expect(try !store.userExists("ana"))
        let first = try store.linkAppAccountToken(Self.token.uppercased(), userId: "ana", now: Instant(milliseconds: 10))
        #expect(first == AppAccountToken(token: Self.token, userId: "ana", linked: Instant(milliseconds: 10)))
        #expect(try store.userExists("ana"))
        #expect(try store.history(forUser: "ana") == PurchaseHistory())
        // Again, in either case and later: the mapping as first linked.
        #expect(try store.linkAppAccountToken(Self.token, userId: "ana", now: Instant(milliseconds: 20)) == first)
        #expect(try store.appAccountTokens(forUser: "ana") == [first])
        #expect(try store.userId(forAppAccountToken: Self.token) == "ana")
        #expect(try store.userId(forAppAccountToken: Self.token.uppercased()) == "ana")
        #expect(try store.userId(forAppAccountToken: Self.other) == nil)
        #expect(try store.userId(forAppAccountToken: "not a uuid") == nil)
    }

    @Test(arguments: StoreBackend.tested) func linkAppAccountToken_ownedByAnotherUser_throwsInUse_andChangesNothing(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        let owned = try store.linkAppAccountToken(Self.token, userId: "ana", now: Instant(milliseconds: 10))
        #expect(throws: StorageError.appAccountTokenInUse(token: Self.token, userId: "ana")) {
            try store.linkAppAccountToken(Self.token.uppercased(), userId: "ben", now: Instant(milliseconds: 20))
        }
        #expect(try store.userId(forAppAccountToken: Self.token) == "ana")
        #expect(try store.appAccountTokens(forUser: "ana") == [owned])
        #expect(try store.appAccountTokens(forUser: "ben").isEmpty)
        #expect(try !store.userExists("ben"))
    }

    @Test(arguments: StoreBackend.tested) func linkAndUnlink_refuseATokenThatIsNotAUUID(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        #expect(throws: StorageError.invalidAppAccountToken("{\(Self.token)}")) {
            try store.linkAppAccountToken("{\(Self.token)}", userId: "ana", now: Instant(milliseconds: 10))
        }
        #expect(throws: StorageError.invalidAppAccountToken("x")) { try store.unlinkAppAccountToken("x", userId: "ana") }
        #expect(try store.userCount() == 0)
    }

    @Test(arguments: StoreBackend.tested) func unlinkAppAccountToken_removesOnlyTheOwnersMapping(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        let owned = try store.linkAppAccountToken(Self.token, userId: "ana", now: Instant(milliseconds: 10))
        // Another user cannot remove it.
        #expect(try store.unlinkAppAccountToken(Self.token, userId: "ben") == nil)
        #expect(try store.userId(forAppAccountToken: Self.token) == "ana")
        #expect(try store.unlinkAppAccountToken(Self.token.uppercased(), userId: "ana") == owned)
        #expect(try store.userId(forAppAccountToken: Self.token) == nil)
        #expect(try store.unlinkAppAccountToken(Self.token, userId: "ana") == nil)
        // Free again: another user may take it.
        #expect(try store.linkAppAccountToken(Self.token, userId: "ben", now: Instant(milliseconds: 30)).userId == "ben")
    }

    @Test(arguments: StoreBackend.tested) func appAccountTokens_areListedInLinkOrder_perUser(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        let later = try store.linkAppAccountToken(Self.token, userId: "ana", now: Instant(milliseconds: 20))
        let earlier = try store.linkAppAccountToken(Self.other, userId: "ana", now: Instant(milliseconds: 10))
        _ = try store.linkAppAccountToken("aaaaaaaa-0000-0000-0000-000000000000", userId: "ben", now: Instant(milliseconds: 5))
        #expect(try store.appAccountTokens(forUser: "ana") == [earlier, later])
        #expect(try store.appAccountTokens(forUser: "nobody").isEmpty)
    }

    /// The schema holds one owner per token even for a writer that skips the store's check.
    @Test(arguments: StoreBackend.tested) func schema_refusesASecondOwner(backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        defer { fixture.remove() }
        let store = try fixture.open()
        _ = try store.linkAppAccountToken(Self.token, userId: "ana", now: Instant(milliseconds: 10))
        _ = try store.linkAppAccountToken(Self.other, userId: "ben", now: Instant(milliseconds: 10))
        #expect(throws: (any Error).self) {
            try fixture.execute("INSERT INTO app_account_tokens (token, user_id, linked_ms) VALUES ('\(Self.token)', 'ben', 0)")
        }
        // And a token's owner must be a user.
        #expect(throws: (any Error).self) {
            try fixture.execute("INSERT INTO app_account_tokens (token, user_id, linked_ms) VALUES ('aaaaaaaa-0000-0000-0000-000000000000', 'ghost', 0)")
        }
    }
}
