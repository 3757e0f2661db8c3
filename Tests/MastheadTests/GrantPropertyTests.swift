import Masthead
import Testing

/// R17 over seeded random histories with grants: a span grant gives what the same paid time
/// gives, adding a grant never takes an issue away, and a revocation is never retroactive.
struct GrantPropertyTests {
    static let seeds: [UInt64] = Array(1...300)

    static func evaluate(_ transactions: [Transaction], grants: [Grant], at: Instant) -> PublicationEntitlement {
        PropertyTests.evaluate(transactions, [], grants: grants, at: at)
    }

    /// Auto-renewable purchases turned into span grants over the same time, with their products'
    /// access and window, give the same periods and readable issues (R17: a span is an interval
    /// exactly as a purchase's).
    @Test(arguments: seeds)
    func spanGrant_givesWhatTheSamePaidTimeGives(seed: UInt64) throws {
        var random = HistoryGenerator(seed: seed)
        let (transactions, _) = random.history(grace: false)
        let at = random.instant()
        var kept: [Transaction] = []
        var grants: [Grant] = []
        for transaction in transactions {
            let product = try #require(PropertyTests.engine.catalog.product(transaction.productId))
            guard product.type == .autoRenewable, transaction.environment == .production, transaction.cancellation == nil, random.chance(50),
                let expires = transaction.expires
            else {
                kept.append(transaction)
                continue
            }
            grants.append(
                Grant(
                    grantId: "g-\(transaction.transactionId)", source: "print",
                    scope: .span(publications: product.publications, access: product.access, window: product.window), start: transaction.purchase,
                    end: expires))
        }
        let paid = Self.evaluate(transactions, grants: [], at: at)
        let granted = Self.evaluate(kept, grants: grants, at: at)
        #expect(granted.readableIssueIds == paid.readableIssueIds)
        #expect(granted.periods.map { "\($0.access) \($0.start) \($0.end)" } == paid.periods.map { "\($0.access) \($0.start) \($0.end)" })
        #expect(granted.lapses.map { "\($0.access) \($0.start)" } == paid.lapses.map { "\($0.access) \($0.start)" })
        #expect((granted.status.state == .active) == (paid.status.state == .active))
    }

    /// Whatever the history, one more grant never removes a readable issue.
    @Test(arguments: seeds)
    func addingGrant_neverRemovesReadableIssue(seed: UInt64) {
        var random = HistoryGenerator(seed: seed)
        let (transactions, _) = random.history(grace: false)
        let at = random.instant()
        let grants = random.grants()
        let before = Set(Self.evaluate(transactions, grants: grants, at: at).readableIssueIds)
        let after = Set(Self.evaluate(transactions, grants: grants + [random.grant("added")], at: at).readableIssueIds)
        #expect(before.isSubset(of: after), "lost \(before.subtracting(after))")
    }

    /// A revocation changes nothing before it happens; after it, a span is as if it had ended at
    /// the revocation (archive keeps what was published before), and an issue grant is as if it
    /// had never been given.
    @Test(arguments: seeds)
    func revocation_isNeverRetroactive(seed: UInt64) {
        var random = HistoryGenerator(seed: seed)
        let (transactions, _) = random.history(grace: false)
        let at = random.instant()
        let others = random.grants()
        let grant = random.grant("revoked")
        var revoked = grant
        revoked.revokedAt = Instant(milliseconds: grant.start.milliseconds + Int64(random.below(24 * 120)) * HistoryGenerator.hour)
        let answer = Self.evaluate(transactions, grants: others + [revoked], at: at)
        let expected: PublicationEntitlement
        if at < revoked.revokedAt! {
            expected = Self.evaluate(transactions, grants: others + [grant], at: at)
        } else if case .span = grant.scope {
            var ended = grant
            ended.end = min(grant.end ?? .distantFuture, revoked.revokedAt!)
            expected = ended.end! > ended.start ? Self.evaluate(transactions, grants: others + [ended], at: at) : Self.evaluate(transactions, grants: others, at: at)
        } else {
            expected = Self.evaluate(transactions, grants: others, at: at)
        }
        #expect(answer.readableIssueIds == expected.readableIssueIds)
        #expect(answer.periods.map { "\($0.access) \($0.start) \($0.end)" } == expected.periods.map { "\($0.access) \($0.start) \($0.end)" })
        #expect(answer.status.state == expected.status.state)
    }
}
