import Masthead
@testable import MastheadService
import MastheadSynthetic
import Testing

/// The answer cache's budget for check bodies: the bodies' bytes (counted by capacity, a shared
/// end once) never pass it, a body asked again outlives bodies asked once (a CLOCK over bodies),
/// and a lookup never finds a body other than the one last put for its key.
struct CheckBudgetTests {
    /// A body for `issue` whose end (after its `at` value) is `end`, its head padded to `padding` bytes more.
    static func check(_ issue: String, end: String, padding: Int = 0) -> HistoryCache.Check {
        let head = Array(#"{"issue":"\#(issue)","pad":"\#(String(repeating: "p", count: padding))","at":""#.utf8)
        let at = Instant(milliseconds: 0).description.utf8
        let body = head + at + Array(#"",\#(end)}"#.utf8)
        return HistoryCache.Check(
            stable: Instant(milliseconds: .min)..<Instant.distantFuture, body: body, at: head.count..<head.count + at.count, readable: true,
            reason: "free")
    }

    /// Caches the user (with an answer), then puts their body for `issue`.
    static func put(_ cache: HistoryCache, _ user: String, _ issue: String, _ check: HistoryCache.Check) {
        HistoryCacheTests.load(cache, user)
        let epoch = cache.check(ExactKey(user), HistoryCacheTests.checkKey(issue)).1
        cache.put(check, for: ExactKey(user), HistoryCacheTests.checkKey(issue), at: epoch)
    }

    /// The body the cache answers for the user's issue, with `at` put in; nil when none is kept
    /// (the lookup marks it used).
    static func body(_ cache: HistoryCache, _ user: String, _ issue: String) -> String? {
        cache.check(ExactKey(user), HistoryCacheTests.checkKey(issue)).0.map { String(decoding: $0.body(at: Instant(milliseconds: 0)), as: UTF8.self) }
    }

    @Test func aBodyEndingLikeAnother_addsItsHeadAlone_andDroppedBodiesGiveTheirBytesBack() throws {
        let cache = HistoryCache(maxUsers: 4, maxCheckBytes: 1 << 20)
        // The reader's list of bodies at its bound: its capacity stays while issues are put again.
        for index in 0..<HistoryCache.maxChecksPerUser { Self.put(cache, "reader", "issue-\(index)", Self.check("issue-\(index)", end: "\"end-\(index)\"")) }
        // A body's arrays are counted by their capacity, which malloc may make a little more than
        // the bytes: the kept bodies' own arrays say what to expect.
        func bytes(_ check: HistoryCache.Check, end: Bool = true) -> Int { HeapBytes.array(check.head) + (end ? HeapBytes.array(check.tail) : 0) }
        let user = ExactKey("reader")
        let full = cache.checkBytes
        let first = try #require(cache.check(user, HistoryCacheTests.checkKey("issue-1")).0)
        Self.put(cache, "reader", "issue-1", Self.check("issue-1", end: "\"a different end, longer than the others'\""))
        let withOwnEnd = cache.checkBytes
        let alone = try #require(cache.check(user, HistoryCacheTests.checkKey("issue-1")).0)
        #expect(withOwnEnd - full == bytes(alone) - bytes(first))
        // The same issue ending as issue-2 does: its end is issue-2's array, counted once.
        Self.put(cache, "reader", "issue-1", Self.check("issue-1", end: "\"end-2\""))
        let shared = try #require(cache.check(user, HistoryCacheTests.checkKey("issue-1")).0)
        let second = try #require(cache.check(user, HistoryCacheTests.checkKey("issue-2")).0)
        #expect(shared.tail.withUnsafeBytes { $0.baseAddress } == second.tail.withUnsafeBytes { $0.baseAddress })
        #expect(withOwnEnd - cache.checkBytes == bytes(alone) - bytes(shared, end: false))
        // Every body gone, no byte is left counted.
        cache.invalidate(users: ["reader"])
        #expect(cache.checkBytes == 0)
        Self.put(cache, "other", "issue-0", Self.check("issue-0", end: "\"end\""))
        #expect(cache.checkBytes > 0)
        cache.invalidateAnswers()
        #expect(cache.checkBytes == 0)
    }

    @Test func aBodyAskedAgain_outlivesBodiesAskedOnce_withinTheBudget() throws {
        let one = HistoryCache.bytesAlone(Self.check("issue-0", end: "\"end\""), HistoryCacheTests.checkKey("issue-0"))
        let budget = 6 * one
        let cache = HistoryCache(maxUsers: 64, maxCheckBytes: budget)
        Self.put(cache, "hot", "issue-0", Self.check("issue-0", end: "\"hot\""))
        for index in 0..<200 {
            Self.put(cache, "cold-\(index % 50)", "issue-\(index % 12)", Self.check("issue-\(index % 12)", end: "\"cold-\(index)\""))
            #expect(cache.checkBytes <= budget)
            #expect(Self.body(cache, "hot", "issue-0") != nil, "the body asked again was dropped after cold body \(index)")
        }
        // The cold bodies made way for each other (each takes at least what the first took).
        let kept = (0..<200).filter { Self.body(cache, "cold-\($0 % 50)", "issue-\($0 % 12)") != nil }
        #expect((1...5).contains(kept.count), "\(kept)")
    }

    @Test func aBudgetOfNoBytes_keepsNoBody_andABodyLargerThanTheBudgetIsNotKept() {
        let none = HistoryCache(maxUsers: 4, maxCheckBytes: 0)
        Self.put(none, "reader", "issue-0", Self.check("issue-0", end: "\"end\""))
        #expect(Self.body(none, "reader", "issue-0") == nil)
        #expect(none.checkBytes == 0)
        #expect(HistoryCacheTests.isCached(none, "reader"), "the reader's answer was not kept")

        let small = HistoryCache.bytesAlone(Self.check("issue-0", end: "\"end\""), HistoryCacheTests.checkKey("issue-0"))
        let cache = HistoryCache(maxUsers: 4, maxCheckBytes: small + 200)
        Self.put(cache, "reader", "issue-0", Self.check("issue-0", end: "\"end\""))
        Self.put(cache, "reader", "issue-1", Self.check("issue-1", end: "\"end\"", padding: 400))
        #expect(Self.body(cache, "reader", "issue-0") != nil, "a body too large for the budget made the kept one make way")
        #expect(Self.body(cache, "reader", "issue-1") == nil)
        #expect(cache.checkBytes <= small + 200)
    }

    /// A seeded sequence of puts, lookups and invalidations over many readers and issues: after
    /// every step the bodies fit in the budget, and a lookup finds nothing or the body last put
    /// for its reader and issue.
    @Test(arguments: [0, 1_500, 12_000, 60_000])
    func generatedSequence_staysWithinTheBudget_andFindsOnlyTheLastBodyPut(budget: Int) {
        let cache = HistoryCache(maxUsers: 40, maxCheckBytes: budget)
        var random = SeededGenerator(seed: 26)
        var last: [String: String] = [:]
        var found = 0
        var most = 0
        for step in 0..<4_000 {
            let user = "reader-\(Int.random(in: 0..<60, using: &random))"
            let issue = "issue-\(Int.random(in: 0..<14, using: &random))"
            switch Int.random(in: 0..<10, using: &random) {
            case 0:
                cache.invalidate(users: [user])
                for key in last.keys where key.hasPrefix(user + "/") { last[key] = nil }
            case 1...4:
                let check = Self.check(issue, end: "\"end-\(Int.random(in: 0..<4, using: &random))\"", padding: Int.random(in: 0..<300, using: &random))
                Self.put(cache, user, issue, check)
                last[user + "/" + issue] = String(decoding: check.body(at: Instant(milliseconds: 0)), as: UTF8.self)
            default:
                if let body = Self.body(cache, user, issue) {
                    #expect(body == last[user + "/" + issue], "step \(step): \(user), \(issue)")
                    found += 1
                }
            }
            #expect(cache.checkBytes <= budget, "step \(step)")
            most = max(most, cache.checkBytes)
        }
        if budget == 0 {
            #expect(found == 0)
        } else {
            #expect(found > 0)
            #expect(most > budget / 2)
        }
    }
}
