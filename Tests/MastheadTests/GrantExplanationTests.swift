import Masthead
import Testing

/// R16 with R17: what the explanations of readable and denied issues say about the grants
/// behind them.
struct GrantExplanationTests {
    static func print(_ id: String, from start: String, to end: String?, revoked: String? = nil) -> Grant {
        Grant(
            grantId: id, source: "print", scope: .span(publications: ["the-monthly"], access: .archive, window: nil),
            start: Mock.instant(start), end: end.map(Mock.instant), revokedAt: revoked.map(Mock.instant))
    }

    static func evaluate(_ transactions: [Transaction], grants: [Grant], at: String) -> PublicationEntitlement {
        let publication = Mock.monthly()
        return Mock.engine(publication).evaluate(
            PurchaseHistory(transactions: transactions, grants: grants), publication: publication, at: Mock.instant(at))
    }

    static func explanation(of issueId: String, in entitlement: PublicationEntitlement) -> String? {
        entitlement.readable.first { $0.issue.id == issueId }.flatMap { entry in entry.reasons.first?.explanation(of: entry.issue, in: entitlement) }
    }

    @Test func R17_R16_issueOfThePurchasedPartOfAJoinedPeriod_isNotExplainedByTheGrant() throws {
        // One period: a purchase from 10 February, then a print grant from 10 April.
        let purchase = Mock.renewal("a", "monthly", "2020-02-10T00:00", "2020-04-10T00:00")
        let grant = Self.print("g-print", from: "2020-04-10T00:00", to: "2020-06-17T00:00")
        let result = Self.evaluate([purchase], grants: [grant], at: "2020-12-01T00:00")
        try #require(result.periods.count == 1)
        // March was published during the purchase, February unlocked by it: the grant gave neither.
        #expect(Self.explanation(of: "2020-03", in: result) == "published during period #0")
        #expect(Self.explanation(of: "2020-02", in: result) == "unlocked when period #0 started (2020-02-10 00:00)")
        // May was published during the grant: it names it.
        #expect(Self.explanation(of: "2020-05", in: result) == "published during period #0, under print subscription g-print, 2020-04-10 – 2020-06-16")
    }

    @Test func R17_R16_issueAfterASpanGrantsRevocation_isDeniedNamingTheRevocation() {
        let grant = Self.print("g-1", from: "2020-02-10T00:00", to: nil, revoked: "2020-05-20T00:00")
        let result = Self.evaluate([], grants: [grant], at: "2020-09-01T00:00")
        // As a purchase that a revocation ended is denied naming it (R5.3), the grant's
        // revocation is what ended the reader's access to July.
        #expect(
            result.access(toIssue: "2020-07")
                == .notReadable(.grantRevoked(grantId: "g-1", source: "print", revokedAt: Mock.instant("2020-05-20T00:00"))))
    }

    @Test func R17_label_ofAYearsPrintSubscription_namesItsLastDay() {
        // The year 2020 is [2020-01-01, 2021-01-01) (R1); people name it by its last day, as the
        // publisher's own example does.
        let grant = Self.print("g-123", from: "2020-01-01T00:00", to: "2021-01-01T00:00")
        #expect(grant.label == "print subscription g-123, 2020-01-01 – 2020-12-31")
    }
}
