import Foundation
import Masthead
import MastheadFormats
@testable import MastheadService
import Testing

/// The answer cache's eviction (CLOCK, or second chance): a full cache stays full, a reader asked
/// again and again outlives readers asked once, and an invalidation still wins over a racing load.
struct HistoryCacheTests {
    /// The key of the answers these tests put.
    static let key = HistoryCache.AnswerKey(publicationId: ExactKey("the-monthly"), environment: .production)

    /// An answer to put: an empty history's entitlement to the-monthly.
    static let answer: KeptEntitlement = {
        let url = ServiceHarness.root.appendingPathComponent("Catalog/the-monthly/catalog.json")
        let catalog = try! CatalogDecoder().decode([UInt8](try! Data(contentsOf: url)))
        return KeptEntitlement(
            EntitlementEngine(catalog: catalog).evaluate(
                PurchaseHistory(), publication: catalog.publication("the-monthly")!, at: Instant(milliseconds: 0), environment: .production))
    }()

    /// A check body for `issue`: `{"issue":"<issue>","at":"<at>",<decision>}`, its `at` value at 1970-01-01.
    static func check(_ issue: String, decision: String) -> HistoryCache.Check {
        let head = Array(#"{"issue":"\#(issue)","at":""#.utf8)
        let at = Instant(milliseconds: 0).description.utf8
        let body = head + at + Array(#"",\#(decision)}"#.utf8)
        return HistoryCache.Check(
            stable: Instant(milliseconds: .min)..<Instant.distantFuture, body: body, at: head.count..<head.count + at.count, readable: true,
            reason: "free")
    }

    /// The key of an issue's check body.
    static func checkKey(_ issue: String) -> HistoryCache.CheckKey {
        HistoryCache.CheckKey(publicationId: ExactKey("the-monthly"), environment: .production, issueId: ExactKey(issue))
    }

    /// Puts a user's answer as a load beginning now would (the user starts unused); nothing when
    /// the user is cached.
    static func load(_ cache: HistoryCache, _ user: String) {
        let (cached, epoch) = cache.answer(ExactKey(user), key)
        guard cached == nil else { return }
        cache.put(answer, for: ExactKey(user), key, at: epoch)
    }

    /// Whether the user's answer is cached (the lookup marks them used).
    static func isCached(_ cache: HistoryCache, _ user: String) -> Bool {
        cache.answer(ExactKey(user), key).0 != nil
    }

    @Test func hotReader_survivesAScanOfColdReaders() {
        let cache = HistoryCache(maxUsers: 8, maxCheckBytes: 1 << 20)
        Self.load(cache, "hot")
        for index in 0..<100 {
            Self.load(cache, "cold-\(index)")
            #expect(Self.isCached(cache, "hot"), "the hot reader was dropped after cold reader \(index)")
        }
    }

    @Test func fullCache_staysFullAtItsBound() {
        let cache = HistoryCache(maxUsers: 5, maxCheckBytes: 1 << 20)
        for index in 0..<50 {
            Self.load(cache, "reader-\(index)")
            #expect(cache.userCount == min(index + 1, 5))
        }
    }

    @Test func newUser_takesThePlaceOfTheFirstUnusedUserTheHandFinds() {
        let cache = HistoryCache(maxUsers: 3, maxCheckBytes: 1 << 20)
        for user in ["a", "b", "c"] { Self.load(cache, user) }
        // a and c are asked again; b is not.
        #expect(Self.isCached(cache, "a"))
        #expect(Self.isCached(cache, "c"))
        Self.load(cache, "d")
        #expect(!Self.isCached(cache, "b"))
        #expect(Self.isCached(cache, "a"))
        #expect(Self.isCached(cache, "c"))
        #expect(Self.isCached(cache, "d"))
        #expect(cache.userCount == 3)
    }

    @Test func answersAndCheckBodies_markTheirUserUsed() {
        let cache = HistoryCache(maxUsers: 2, maxCheckBytes: 1 << 20)
        for user in ["a", "b"] { Self.load(cache, user) }
        let key = HistoryCache.CheckKey(publicationId: ExactKey("p"), environment: .production, issueId: ExactKey("i"))
        // Asked through their check body alone, a outlives b, asked once.
        _ = cache.check(ExactKey("a"), key)
        Self.load(cache, "c")
        #expect(!Self.isCached(cache, "b"))
        #expect(Self.isCached(cache, "a"))
    }

    @Test func checkBodies_keepTheLatestAtTheirBound_theFirstPutMakingWay() {
        let cache = HistoryCache(maxUsers: 2, maxCheckBytes: 1 << 20)
        Self.load(cache, "reader")
        let user = ExactKey("reader")
        let bound = HistoryCache.maxChecksPerUser
        for index in 0...bound {
            let epoch = cache.check(user, Self.checkKey("issue-\(index)")).1
            cache.put(Self.check("issue-\(index)", decision: #""readable":true"#), for: user, Self.checkKey("issue-\(index)"), at: epoch)
        }
        #expect(cache.check(user, Self.checkKey("issue-0")).0 == nil, "the first body put stayed past the bound")
        for index in 1...bound { #expect(cache.check(user, Self.checkKey("issue-\(index)")).0 != nil, "issue-\(index) was dropped") }
        // Putting a kept issue again replaces its body in place: nothing makes way.
        let epoch = cache.check(user, Self.checkKey("issue-1")).1
        cache.put(Self.check("issue-1", decision: #""readable":false"#), for: user, Self.checkKey("issue-1"), at: epoch)
        for index in 1...bound { #expect(cache.check(user, Self.checkKey("issue-\(index)")).0 != nil, "issue-\(index) was dropped") }
    }

    @Test func checkBodiesEndingInTheSameBytes_shareOneArray_andAnswerTheirOwnBodies() throws {
        let cache = HistoryCache(maxUsers: 2, maxCheckBytes: 1 << 20)
        Self.load(cache, "reader")
        let user = ExactKey("reader")
        let decisions = ["a": #""readable":true,"why":"period 0""#, "b": #""readable":true,"why":"period 0""#, "c": #""readable":false"#]
        for issue in ["a", "b", "c"] {
            let epoch = cache.check(user, Self.checkKey(issue)).1
            cache.put(Self.check(issue, decision: decisions[issue]!), for: user, Self.checkKey(issue), at: epoch)
        }
        let kept = try ["a", "b", "c"].map { issue in try #require(cache.check(user, Self.checkKey(issue)).0) }
        func storage(_ check: HistoryCache.Check) -> UnsafeRawPointer? { check.tail.withUnsafeBytes { $0.baseAddress } }
        #expect(storage(kept[0]) == storage(kept[1]))
        #expect(storage(kept[0]) != storage(kept[2]))
        let at = Instant(milliseconds: 1_234_567_890_123)
        for (issue, check) in zip(["a", "b", "c"], kept) {
            #expect(String(decoding: check.body(at: at), as: UTF8.self) == #"{"issue":"\#(issue)","at":"\#(at)",\#(decisions[issue]!)}"#)
        }
    }

    @Test func answersOfTwoReaders_readableForTheSameReasons_shareTheirArray() throws {
        let url = ServiceHarness.root.appendingPathComponent("Catalog/the-monthly/catalog.json")
        let catalog = try CatalogDecoder().decode([UInt8](try Data(contentsOf: url)))
        let publication = try #require(catalog.publication("the-monthly"))
        // The free issue is readable by anyone once published.
        let at = try #require(DateText.rfc3339("2020-12-15T00:00:00Z"))
        let cache = HistoryCache(maxUsers: 4, maxCheckBytes: 1 << 20)
        for user in ["a", "b"] {
            let answer = KeptEntitlement(EntitlementEngine(catalog: catalog).evaluate(PurchaseHistory(), publication: publication, at: at, environment: .production))
            cache.put(answer, for: ExactKey(user), Self.key, at: cache.answer(ExactKey(user), Self.key).1)
        }
        let reasons = try ["a", "b"].map { user in try #require(cache.answer(ExactKey(user), Self.key).0?.asOf(at).readable.first?.reasons) }
        #expect(reasons[0] == [.free])
        #expect(reasons[0].withUnsafeBytes { $0.baseAddress } == reasons[1].withUnsafeBytes { $0.baseAddress })
    }

    @Test func invalidation_winsOverARacingLoad_inAFullCache() {
        let cache = HistoryCache(maxUsers: 2, maxCheckBytes: 1 << 20)
        for user in ["x", "y"] { Self.load(cache, user) }
        let (cached, epoch) = cache.answer(ExactKey("z"), Self.key)
        #expect(cached == nil, "z was cached")
        cache.invalidate(users: ["z"])
        cache.put(Self.answer, for: ExactKey("z"), Self.key, at: epoch)
        #expect(!Self.isCached(cache, "z"))
        // The refused load evicted no one.
        #expect(Self.isCached(cache, "x"))
        #expect(Self.isCached(cache, "y"))
    }

    @Test func invalidatedUser_freesTheirPlace_forTheNextUser() {
        let cache = HistoryCache(maxUsers: 2, maxCheckBytes: 1 << 20)
        for user in ["x", "y"] { Self.load(cache, user) }
        cache.invalidate(users: ["x"])
        #expect(cache.userCount == 1)
        Self.load(cache, "z")
        #expect(Self.isCached(cache, "z"))
        #expect(Self.isCached(cache, "y"))
        #expect(!Self.isCached(cache, "x"))
        #expect(cache.userCount == 2)
    }

    @Test func usersWithCanonicallyEquivalentIds_areTwoUsers() {
        let cache = HistoryCache(maxUsers: 4, maxCheckBytes: 1 << 20)
        let composed = "caf\u{E9}"
        let decomposed = "cafe\u{301}"
        Self.load(cache, composed)
        #expect(!Self.isCached(cache, decomposed))
        Self.load(cache, decomposed)
        cache.invalidate(users: [composed])
        #expect(!Self.isCached(cache, composed))
        #expect(Self.isCached(cache, decomposed))
    }

    @Test func removeAll_dropsEveryUser_andTheCacheFillsAgain() {
        let cache = HistoryCache(maxUsers: 3, maxCheckBytes: 1 << 20)
        for index in 0..<5 { Self.load(cache, "reader-\(index)") }
        cache.removeAll()
        #expect(cache.userCount == 0)
        for index in 0..<5 { Self.load(cache, "again-\(index)") }
        #expect(cache.userCount == 3)
    }
}
