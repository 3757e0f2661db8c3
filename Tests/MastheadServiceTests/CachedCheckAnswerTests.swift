import Masthead
import MastheadFormats
import MastheadJSON
@testable import MastheadService
import MastheadSynthetic
import Testing

/// The download check's cache keeps, per reader, only what deciding and explaining an issue reads
/// (no purchase history): its answers are byte for byte those written afresh from the reader's
/// full stored history, over a generated population, at instants drawn at random and exactly at
/// the bounds of the answers' stable ranges and periods (and a millisecond either side).
struct CachedCheckAnswerTests {
    /// Instants worth asking about for an answer: its stable range's bounds and its periods'
    /// starts and ends, a millisecond either side too, left out when beyond any real date.
    static func bounds(of answer: PublicationEntitlement) -> [Instant] {
        var instants = [answer.stable.lowerBound, answer.stable.upperBound]
        for period in answer.periods { instants += [period.start, period.end] }
        let last = DateText.rfc3339("2100-01-01T00:00:00Z")!
        let first = DateText.rfc3339("2000-01-01T00:00:00Z")!
        return instants.filter { $0 > first && $0 < last }.flatMap { instant in [-1, 0, 1].map { instant.adding(milliseconds: $0) } }
    }

    /// The harness's catalog, The Monthly in it, an engine over it and the generated population of it.
    static func monthly(_ harness: ServiceHarness) throws -> (Catalog, Publication, EntitlementEngine, SyntheticPopulation) {
        let catalog = harness.service.catalog
        return (catalog, try #require(catalog.publication("the-monthly")), EntitlementEngine(catalog: catalog), SyntheticPopulation(catalog: catalog))
    }

    @Test func cachedChecks_equalAnswersWrittenFromTheFullHistory_overAGeneratedPopulation() throws {
        let harness = try ServiceHarness()
        defer { harness.close() }
        let (_, publication, engine, population) = try Self.monthly(harness)
        var random = SeededGenerator(seed: 26)
        let span = Int64(3 * 366) * Instant.millisecondsPerDay
        var compared = 0
        for index in 0..<30 {
            let user = "user-\(index)"
            #expect(harness.call("POST", "/v1/users/\(user)/receipts", body: population.receipt(user: index, random: &random)).status == 200)
            let history = try #require(try harness.service.history(forUser: user))
            var instants = (0..<12).map { _ in population.start.adding(milliseconds: Int64.random(in: -30 * Instant.millisecondsPerDay..<span, using: &random)) }
            for at in instants { instants += Self.bounds(of: engine.evaluate(history, publication: publication, at: at)) }
            instants.shuffle(using: &random)
            for at in instants {
                let fresh = engine.evaluate(history, publication: publication, at: at)
                for _ in 0..<3 {
                    let issue = publication.issues[Int.random(in: 0..<publication.issues.count, using: &random)]
                    let answer = harness.call("GET", "/v1/users/\(user)/issues/the-monthly/\(issue.id)?at=\(at)")
                    var writer = JSONWriter()
                    EntitlementJSON.writeCheck(issue, try #require(fresh.access(toIssue: issue.id)), fresh, userId: user, into: &writer)
                    #expect(answer.body == writer.text, "\(user), \(issue.id) at \(at)")
                    compared += 1
                }
            }
        }
        // The population reaches past the random instants: every reader met bounds too.
        #expect(compared > 30 * 12 * 3)
    }

    /// Checks over many readers and issues within a budget for check bodies too small for them:
    /// after every check the bodies take at most the budget, and every answer is the one written
    /// afresh from the reader's full history, whether its body was kept, dropped or never kept
    /// (a budget of 0).
    @Test(arguments: [0, 4_000, 40_000])
    func checksWithinABudget_equalAnswersWrittenFromTheFullHistory(budget: Int) throws {
        let harness = try ServiceHarness { $0.maxCachedCheckBytes = budget }
        defer { harness.close() }
        let (_, publication, engine, population) = try Self.monthly(harness)
        var random = SeededGenerator(seed: 27)
        let span = Int64(2 * 366) * Instant.millisecondsPerDay
        var histories: [PurchaseHistory] = []
        var instants: [[Instant]] = []
        for index in 0..<24 {
            #expect(harness.call("POST", "/v1/users/user-\(index)/receipts", body: population.receipt(user: index, random: &random)).status == 200)
            histories.append(try #require(try harness.service.history(forUser: "user-\(index)")))
            instants.append((0..<3).map { _ in population.start.adding(milliseconds: Int64.random(in: 0..<span, using: &random)) })
        }
        var most = 0
        for step in 0..<1_500 {
            // Half the checks go to four readers and three issues, which are asked again and again.
            let hot = Bool.random(using: &random)
            let reader = Int.random(in: 0..<(hot ? 4 : histories.count), using: &random)
            let issue = publication.issues[Int.random(in: 0..<(hot ? 3 : publication.issues.count), using: &random)]
            let at = instants[reader][Int.random(in: 0..<3, using: &random)]
            let answer = harness.call("GET", "/v1/users/user-\(reader)/issues/the-monthly/\(issue.id)?at=\(at)")
            let fresh = engine.evaluate(histories[reader], publication: publication, at: at)
            var writer = JSONWriter()
            EntitlementJSON.writeCheck(issue, try #require(fresh.access(toIssue: issue.id)), fresh, userId: "user-\(reader)", into: &writer)
            #expect(answer.body == writer.text, "step \(step): user-\(reader), \(issue.id) at \(at)")
            let bytes = harness.service.cachedCheckBytes
            #expect(bytes <= budget, "step \(step)")
            most = max(most, bytes)
        }
        // The budget was reached: bodies were kept, and made way.
        #expect(budget == 0 ? most == 0 : most > budget / 2)
    }

    @Test func keptAnswer_decidesAndExplainsEveryIssueAsTheFullAnswer_withoutThePurchases() throws {
        let harness = try ServiceHarness()
        defer { harness.close() }
        let (catalog, publication, engine, population) = try Self.monthly(harness)
        var random = SeededGenerator(seed: 7)
        var withPurchases = 0
        for index in 0..<40 {
            let history = try ReceiptDecoder(catalog: catalog).decode(population.receipt(user: index, random: &random)).history
            let at = population.start.adding(milliseconds: Int64.random(in: 0..<(2 * 366 * Instant.millisecondsPerDay), using: &random))
            let full = engine.evaluate(history, publication: publication, at: at)
            let kept = full.keepingIssueDecisions()
            // The cache's compact form gives back the same kept answer.
            let keptCompactly = KeptEntitlement(full).asOf(at)
            #expect(keptCompactly.readable == kept.readable)
            #expect(keptCompactly.stable == kept.stable)
            #expect(keptCompactly.periods == kept.periods)
            if !full.purchases.isEmpty { withPurchases += 1 }
            #expect(kept.purchases.isEmpty)
            #expect(kept.stable == full.stable)
            #expect(kept.periods.map { [$0.start, $0.end] } == full.periods.map { [$0.start, $0.end] })
            for period in kept.periods where period.access == .archive { #expect(period.intervals.allSatisfy { $0.kind == .grant }) }
            for issue in publication.issues {
                var fullBody = JSONWriter()
                var keptBody = JSONWriter()
                var compactBody = JSONWriter()
                EntitlementJSON.writeCheck(issue, try #require(full.access(toIssue: issue.id)), full, userId: "u", into: &fullBody)
                EntitlementJSON.writeCheck(issue, try #require(kept.access(toIssue: issue.id)), kept, userId: "u", into: &keptBody)
                EntitlementJSON.writeCheck(issue, try #require(keptCompactly.access(toIssue: issue.id)), keptCompactly, userId: "u", into: &compactBody)
                #expect(keptBody.text == fullBody.text, "reader \(index), \(issue.id) at \(at)")
                #expect(compactBody.text == fullBody.text, "reader \(index), \(issue.id) at \(at)")
            }
        }
        #expect(withPurchases > 10)
    }
}
