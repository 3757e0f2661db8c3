import Masthead
import MastheadAudit
import Testing

/// Which product a (user, publication) line is counted under when the publisher's grants (R17)
/// make it.
struct GrantProductKeyTests {
    static func instant(_ month: Int, _ day: Int) -> Instant { CivilTime(year: 2020, month: month, day: day).instant }

    @Test func lineActiveOnlyByAGrant_isNotCountedUnderTheLapsedSubscription() throws {
        let publication = Publication(
            id: "the-monthly", title: nil,
            issues: (1...12).map { month in Issue(id: month < 10 ? "2020-0\(month)" : "2020-\(month)", published: Self.instant(month, 1)) })
        let engine = EntitlementEngine(
            catalog: Catalog(
                publications: [publication],
                products: [Product(productId: "monthly", type: .autoRenewable, publications: ["the-monthly"], access: .archive)]))
        // A monthly subscription that lapsed in February; a print grant covering June.
        let history = PurchaseHistory(
            transactions: [
                Transaction(
                    transactionId: "a", productId: "monthly", purchase: Self.instant(1, 10), expires: Self.instant(2, 10), environment: .production)
            ],
            grants: [
                Grant(
                    grantId: "g-print", source: "print", scope: .span(publications: ["the-monthly"], access: .archive, window: nil),
                    start: Self.instant(5, 1), end: Self.instant(9, 1))
            ])
        let line = engine.evaluate(history, publication: publication, at: Self.instant(6, 15))
        try #require(line.status.state == .active)
        #expect(AuditSummary.productKey(line) == "(grant print)")
        // While the subscription covers the instant, the line is the subscription's.
        #expect(AuditSummary.productKey(engine.evaluate(history, publication: publication, at: Self.instant(1, 20))) == "monthly")
    }
}
