import Masthead
import MastheadReports
import Testing

/// The timeline of a reader whose periods hold the publisher's grants (R17) beside purchases.
struct TimelineGrantTests {
    static func instant(_ month: Int, _ day: Int, _ hour: Int = 0) -> Instant { CivilTime(year: 2020, month: month, day: day, hour: hour).instant }

    static let publication = Publication(
        id: "the-monthly", title: "The Monthly",
        issues: (1...12).map { month in Issue(id: month < 10 ? "2020-0\(month)" : "2020-\(month)", published: instant(month, 1)) })
    static let engine = EntitlementEngine(
        catalog: Catalog(
            publications: [publication],
            products: [
                Product(productId: "monthly", type: .autoRenewable, publications: ["the-monthly"], access: .archive),
                Product(productId: "premium", type: .autoRenewable, publications: ["the-monthly"], access: .archive),
            ]))

    /// An upgrade from monthly to premium on 15 March at noon (R5.2), and a short comp starting
    /// at that very instant.
    static func chart() -> String {
        let history = PurchaseHistory(
            transactions: [
                Transaction(
                    transactionId: "a", originalTransactionId: "a", productId: "monthly", purchase: instant(2, 1, 12), expires: instant(3, 1, 12),
                    environment: .production),
                Transaction(
                    transactionId: "b", originalTransactionId: "a", productId: "monthly", purchase: instant(3, 1, 11), expires: instant(4, 1, 12),
                    cancellation: instant(3, 15, 12), isUpgraded: true, environment: .production),
                Transaction(
                    transactionId: "c", originalTransactionId: "a", productId: "premium", purchase: instant(3, 15, 12), expires: instant(4, 15, 12),
                    environment: .production),
            ],
            grants: [
                Grant(
                    grantId: "g-comp", source: "comp", scope: .span(publications: ["the-monthly"], access: .archive, window: nil),
                    start: instant(3, 15, 12), end: instant(3, 20))
            ])
        let entitlement = engine.evaluate(history, publication: publication, at: instant(6, 1))
        return TimelineChart(reader: "r", entitlements: [entitlement], history: history).svg
    }

    @Test func upgradeArrow_pointsToTheProductUpgradedTo_notToAGrantStartingThen() {
        let svg = Self.chart()
        #expect(svg.contains("data-from=\"monthly\" data-to=\"premium\""))
        #expect(!svg.contains("data-to=\"comp\""))
    }

    @Test func grantBar_isNotCalledATransaction() {
        #expect(!Self.chart().contains("transaction g-comp"))
    }
}
