@testable import Masthead
import Testing

/// Properties over seeded random histories: each seed is a reproducible case.
struct PropertyTests {
    static let seeds: [UInt64] = Array(1...300)
    static let publication = Mock.monthly(freeMonths: [7])
    static let engine = Mock.engine(publication)

    static func evaluate(_ transactions: [Transaction], _ renewals: [RenewalInfo], grants: [Grant] = [], at: Instant) -> PublicationEntitlement {
        engine.evaluate(PurchaseHistory(transactions: transactions, renewals: renewals, grants: grants), publication: publication, at: at)
    }

    /// Transactions and renewal infos (R2.7) in any order, with copies or replays, give one answer.
    @Test(arguments: seeds)
    func result_doesNotDependOnOrderOrDuplicates(seed: UInt64) {
        var random = HistoryGenerator(seed: seed)
        let (transactions, renewals) = random.history()
        let at = random.instant()
        let grants = random.grants()
        let reference = Self.evaluate(transactions, renewals, grants: grants, at: at)
        let duplicated = random.shuffled(transactions + transactions.filter { _ in random.chance(50) })
        let replayed = random.shuffled(renewals + renewals.filter { _ in random.chance(50) })
        // Grants in any order, a grant given again (R17).
        let regranted = random.shuffled(grants + grants.filter { _ in random.chance(50) })
        let other = Self.evaluate(duplicated, replayed, grants: regranted, at: at)
        #expect(other.readable == reference.readable)
        #expect(other.status == reference.status)
        #expect(other.periods == reference.periods)
    }

    /// Large histories (copies found by hashing) merge exactly like small ones (copies found by
    /// comparing ids): several seeds' transactions together, with copies, in any order.
    @Test(arguments: Array(1...30))
    func merge_largeHistory_equalsSmallMerges(seed: UInt64) {
        var random = HistoryGenerator(seed: seed)
        var all: [Transaction] = []
        for part in 0..<12 {
            let (transactions, _) = random.history()
            all += transactions.map { transaction in
                var renamed = transaction
                renamed.transactionId = "\(part)-\(transaction.transactionId)"
                return renamed
            }
        }
        let copies = all.filter { _ in random.chance(40) }.map { copy in
            var changed = copy
            if random.chance(50) { changed.cancellation = copy.purchase.adding(milliseconds: HistoryGenerator.hour) }
            return changed
        }
        let whole = PurchaseHistory(transactions: random.shuffled(all + copies))
        #expect(whole.transactions.count == all.count)
        #expect(whole.transactions.count > PurchaseHistory.linearMergeLimit)
        // One transaction at a time: every merge but the last few compares ids.
        var piecewise = PurchaseHistory()
        for transaction in random.shuffled(all + copies) { piecewise.merge(transactions: [transaction], renewals: []) }
        #expect(piecewise == whole)
    }

    @Test(arguments: seeds)
    func readable_holdsOnlyPublishedIssues_inOrder_eachWithAReason(seed: UInt64) {
        var random = HistoryGenerator(seed: seed)
        let (transactions, renewals) = random.history()
        let at = random.instant()
        let result = Self.evaluate(transactions, renewals, grants: random.grants(), at: at)
        #expect(result.readable.allSatisfy { $0.issue.published <= at && !$0.reasons.isEmpty })
        let keys = result.readable.map { ($0.issue.published, $0.issue.id) }
        #expect(zip(keys, keys.dropFirst()).allSatisfy { $0 < $1 })
        // The decision list agrees with the readable list.
        #expect(result.decisions.filter { $0.access.isReadable }.map(\.issue.id) == result.readableIssueIds)
    }

    @Test(arguments: seeds)
    func streaming_grantsNothing_whileLapsed(seed: UInt64) {
        var random = HistoryGenerator(seed: seed)
        let (transactions, renewals) = random.history()
        let streamingOnly = transactions.filter { ["reader", "reader6", "reader2", "passweek"].contains($0.productId) }
        let at = random.instant()
        let result = Self.evaluate(streamingOnly, renewals, at: at)
        let covered = result.periods.contains { $0.access == .streaming && $0.contains(at) }
        let nonFree = result.readable.filter { $0.reasons != [.free] }
        #expect(covered || nonFree.isEmpty)
        #expect(!covered || result.status.state == .active || result.status.state == .gracePeriod)
    }

    @Test(arguments: seeds)
    func addingPaidRenewal_neverRemovesReadableIssue_withoutGrace(seed: UInt64) {
        var random = HistoryGenerator(seed: seed)
        let (transactions, _) = random.history(grace: false)
        let at = random.instant()
        let before = Set(Self.evaluate(transactions, [], at: at).readableIssueIds)
        let start = HistoryGenerator.base + Int64(random.below(24 * 400)) * HistoryGenerator.hour
        let renewal = Transaction(
            transactionId: "added", originalTransactionId: "o0", productId: ["monthly", "reader", "reader6"][random.below(3)],
            purchase: Instant(milliseconds: start), expires: Instant(milliseconds: start + Int64(24 * (1 + random.below(40))) * HistoryGenerator.hour))
        let after = Set(Self.evaluate(transactions + [renewal], [], at: at).readableIssueIds)
        #expect(before.isSubset(of: after), "lost \(before.subtracting(after))")
    }

    @Test(arguments: seeds)
    func periods_areDisjointPerStyle_andStarted(seed: UInt64) {
        var random = HistoryGenerator(seed: seed)
        let (transactions, renewals) = random.history()
        let at = random.instant()
        let result = Self.evaluate(transactions, renewals, grants: random.grants(), at: at)
        for style in AccessStyle.allCases {
            let runs = result.periods.filter { $0.access == style }
            #expect(zip(runs, runs.dropFirst()).allSatisfy { $0.end < $1.start })
        }
        #expect(result.periods.allSatisfy { $0.start <= at && $0.start < $0.end })
    }

    @Test(arguments: seeds)
    func answer_isTheSame_anywhereInItsStableRange(seed: UInt64) {
        var random = HistoryGenerator(seed: seed)
        let (transactions, renewals) = random.history()
        let at = random.instant()
        let grants = random.grants()
        let answer = Self.evaluate(transactions, renewals, grants: grants, at: at)
        #expect(answer.stable.contains(at))
        let low = max(answer.stable.lowerBound.milliseconds, at.milliseconds - 400 * Instant.millisecondsPerDay)
        let high = min(answer.stable.upperBound.milliseconds, at.milliseconds + 400 * Instant.millisecondsPerDay)
        for other in [low, high - 1, low + Int64(random.below(Int(max(1, min(high - low, 1 << 40)))))] {
            let instant = Instant(milliseconds: other)
            let fresh = Self.evaluate(transactions, renewals, grants: grants, at: instant)
            let moved = answer.asOf(instant)
            #expect(moved.readable == fresh.readable)
            #expect(moved.status == fresh.status)
            #expect(moved.periods == fresh.periods)
            #expect(moved.refunded == fresh.refunded)
            #expect(moved.decisions.map(\.access) == fresh.decisions.map(\.access))
            #expect(moved.lapses.map { "\($0.access)\($0.start)\(String(describing: $0.end))" } == fresh.lapses.map { "\($0.access)\($0.start)\(String(describing: $0.end))" })
        }
        // Just outside the range, something the rules look at has changed.
        if answer.stable.upperBound != .distantFuture {
            #expect(!answer.stable.contains(answer.stable.upperBound))
        }
    }
}
