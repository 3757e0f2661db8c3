import Foundation
import Masthead
import MastheadJSON
import MastheadService
import MastheadStorage
import MastheadTestSupport
import Synchronization
import Testing

/// An id is its exact bytes: two spellings that Swift's `String ==` takes for one (canonically
/// equivalent: precomposed and decomposed, U+00C5 and U+212B ANGSTROM SIGN) are two users, two
/// issues, everywhere in the service: the answer cache, the owner checks of restores, the app
/// account token guards. Look-alikes (Cyrillic, fullwidth) are two ids as well.
struct IdentifierBytesTests {
    /// Pairs of path segments naming two users: canonically equivalent spellings, then look-alikes.
    static let spellings: [(owner: String, other: String)] = [
        ("caf%C3%A9", "cafe%CC%81"),  // é precomposed, e + U+0301 COMBINING ACUTE ACCENT
        ("%C3%85ngstr%C3%B6m", "%E2%84%ABngstr%C3%B6m"),  // U+00C5, U+212B ANGSTROM SIGN
        ("caf%C3%A9", "c%D0%B0f%C3%A9"),  // Latin a, U+0430 CYRILLIC SMALL LETTER A
        ("caf%C3%A9", "%EF%BD%83%EF%BD%81%EF%BD%86%C3%A9"),  // fullwidth c, a, f
    ]

    static func readable(_ harness: ServiceHarness, _ user: String, _ issue: String) -> Bool? {
        ServiceRouterTests.readable(harness, user, issue, at: "2020-07-02T00:00:00Z")
    }

    /// One spelling subscribes; the other, asked after the first's answer is cached, has no
    /// subscription: not readable, and an unknown user.
    @Test(arguments: spellings)
    func cachedAnswer_ofOneSpelling_isNeverTheOthers(owner: String, other: String) throws {
        let harness = try ServiceHarness()
        defer { harness.close() }
        #expect(harness.call("POST", "/v1/users/\(owner)/receipts", body: try ServiceHarness.example("table-6-1")).status == 200)
        #expect(Self.readable(harness, owner, "2020-03") == true)
        #expect(Self.readable(harness, other, "2020-03") == false)
        let entitlements = harness.call("GET", "/v1/users/\(other)/entitlements?at=2020-07-02T00:00:00Z")
        #expect(entitlements.status == 404, "\(entitlements.body)")
        #expect(entitlements.json?["error"]?["code"]?.string == "unknown_user")
        #expect(Self.readable(harness, owner, "2020-03") == true)
    }

    /// Both spellings subscribe on either store: each is answered from its own history, cached or not.
    @Test(arguments: StoreBackend.tested)
    func twoSpellings_areTwoUsers_inTheStoreAndTheCache(backend: StoreBackend) throws {
        let harness = try ServiceHarness(backend: backend)
        defer { harness.close() }
        let (precomposed, decomposed) = ("caf%C3%A9", "cafe%CC%81")
        #expect(harness.call("POST", "/v1/users/\(precomposed)/receipts", body: try ServiceHarness.example("table-6-1")).status == 200)
        #expect(Self.readable(harness, precomposed, "2020-05") == false)
        #expect(harness.call("POST", "/v1/users/\(decomposed)/receipts", body: try ServiceHarness.example("single-issue")).status == 200)
        for _ in 0..<2 {
            #expect(Self.readable(harness, precomposed, "2020-03") == true)
            #expect(Self.readable(harness, precomposed, "2020-05") == false)
            #expect(Self.readable(harness, decomposed, "2020-03") == false)
            #expect(Self.readable(harness, decomposed, "2020-05") == true)
        }
    }

    /// Under `restore: keep`, the other spelling posting the same subscription is 409 and the
    /// subscription stays with its owner; under `transfer` it moves.
    @Test(arguments: [("keep", 409), ("transfer", 200)], StoreBackend.tested)
    func receiptOfAnotherSpelling_followsTheRestoreBehaviour(restore: (String, Int), backend: StoreBackend) throws {
        let (behaviour, status) = restore
        let harness = try ServiceHarness(backend: backend, restore: behaviour, now: "2020-03-01T00:00:00Z")
        defer { harness.close() }
        #expect(harness.call("POST", "/v1/users/caf%C3%A9/receipts", body: try ServiceHarness.example("table-6-1")).status == 200)
        #expect(Self.readable(harness, "caf%C3%A9", "2020-03") == true)
        let answer = harness.call("POST", "/v1/users/cafe%CC%81/receipts", body: try ServiceHarness.example("table-6-1"))
        #expect(answer.status == status, "\(answer.body)")
        let moved = status == 200
        if !moved { #expect(answer.json?["error"]?["code"]?.string == "receipt_already_in_use") }
        #expect(Self.readable(harness, "cafe%CC%81", "2020-03") == moved)
        #expect(Self.readable(harness, "caf%C3%A9", "2020-03") == !moved)
    }

    /// A restore (App Store Server API) by the other spelling under `keep` is 409.
    @Test func restoreOfAnotherSpelling_underKeep_is409() throws {
        let fake = try RestoreTests.fake()
        defer { fake.stop() }
        let harness = try RestoreTests.harness(fake, restore: "keep")
        defer { harness.close() }
        #expect(harness.call("POST", "/v1/users/%C3%85sa/transactions", json: SignedFixtures.transactions(try RestoreTests.table61())).status == 200)
        let answer = harness.call("POST", "/v1/users/%E2%84%ABsa/restore", json: RestoreTests.body("1000002"))
        #expect(answer.status == 409, "\(answer.body)")
        #expect(answer.json?["error"]?["code"]?.string == "receipt_already_in_use")
        #expect(ServiceRouterTests.readable(harness, "%E2%84%ABsa", "2020-03", at: "2020-03-01T12:00:00Z") == false)
        #expect(ServiceRouterTests.readable(harness, "%C3%85sa", "2020-03", at: "2020-03-01T12:00:00Z") == true)
    }

    /// An app account token of one spelling is another user's to the other: linking it is 409,
    /// removing it 404, and a restore of a subscription bound to it is 409 even under `transfer`.
    @Test func appAccountTokenOfOneSpelling_isAnotherUsersToTheOther() throws {
        let (token, fake, history) = try RestoreTests.tokenBoundSubscription()
        defer { fake.stop() }
        let harness = try RestoreTests.harness(fake, restore: "transfer")
        defer { harness.close() }
        let (owner, other) = ("caf%C3%A9", "cafe%CC%81")
        #expect(harness.call("PUT", "/v1/users/\(owner)/app-account-tokens/\(token)").status == 200)
        let taken = harness.call("PUT", "/v1/users/\(other)/app-account-tokens/\(token)")
        #expect(taken.status == 409, "\(taken.body)")
        #expect(taken.json?["error"]?["code"]?.string == "app_account_token_in_use")
        #expect(harness.call("DELETE", "/v1/users/\(other)/app-account-tokens/\(token)").status == 404)
        #expect(harness.call("GET", "/v1/users/\(owner)/app-account-tokens").json?["appAccountTokens"]?.elements.map { $0["appAccountToken"]?.string } == [token])
        #expect(harness.call("POST", "/v1/users/\(owner)/transactions", json: SignedFixtures.transactions(history)).status == 200)
        let restore = harness.call("POST", "/v1/users/\(other)/restore", json: RestoreTests.body("1000002"))
        #expect(restore.status == 409, "\(restore.body)")
        #expect(restore.json?["error"]?["code"]?.string == "receipt_already_in_use")
        #expect(ServiceRouterTests.readable(harness, other, "2020-03", at: "2020-03-01T12:00:00Z") == false)
        #expect(ServiceRouterTests.readable(harness, owner, "2020-03", at: "2020-03-01T12:00:00Z") == true)
    }

    /// Two issues published under two spellings of one name are two issues, each with its own
    /// publish instant and answer, before and after a restart.
    @Test(arguments: StoreBackend.tested)
    func issuesOfTwoSpellings_areTwoIssues(backend: StoreBackend) throws {
        let harness = try ServiceHarness(backend: backend)
        #expect(harness.call("POST", "/v1/users/gina/receipts", body: try ServiceHarness.example("table-6-1")).status == 200)
        // Published while she was subscribed, and during her lapse.
        let during = #"{"title": "Caf\u00e9 (March)", "published": "2020-03-10T00:00:00Z"}"#
        let lapsed = #"{"title": "Cafe\u0301 (May)", "published": "2020-05-10T00:00:00Z"}"#
        #expect(harness.call("PUT", "/v1/publications/the-monthly/issues/caf%C3%A9", token: "admin-token", json: during).status == 200)
        #expect(Self.readable(harness, "gina", "caf%C3%A9") == true)
        #expect(harness.call("GET", "/v1/users/gina/issues/the-monthly/cafe%CC%81?at=2020-07-02T00:00:00Z").status == 404)
        #expect(harness.call("PUT", "/v1/publications/the-monthly/issues/cafe%CC%81", token: "admin-token", json: lapsed).status == 200)
        #expect(Self.readable(harness, "gina", "caf%C3%A9") == true)
        #expect(Self.readable(harness, "gina", "cafe%CC%81") == false)
        harness.close(remove: false)
        let restarted = try ServiceHarness(path: harness.path)
        defer { restarted.close() }
        let ids = restarted.call("GET", "/v1/publications/the-monthly/issues").json?["issues"]?.elements.compactMap { $0["id"]?.string }
        #expect(ids.map { $0.filter { $0.hasPrefix("caf") }.map { Array($0.utf8) } } == [Array("caf\u{E9}".utf8), Array("cafe\u{301}".utf8)])
        #expect(Self.readable(restarted, "gina", "caf%C3%A9") == true)
        #expect(Self.readable(restarted, "gina", "cafe%CC%81") == false)
    }
}
