import Masthead
@testable import MastheadService
import Testing

/// The consumption share of a transaction (Send Consumption Information) when the publisher's
/// grants (R17) share its periods.
struct ConsumptionShareGrantTests {
    static func instant(_ day: Int, month: Int) -> Instant { CivilTime(year: 2020, month: month, day: day).instant }

    static let publication = Publication(
        id: "the-monthly", title: "The Monthly",
        issues: (1...12).map { month in Issue(id: month < 10 ? "2020-0\(month)" : "2020-\(month)", published: instant(1, month: month)) })
    static let catalog = Catalog(
        publications: [publication], products: [Product(productId: "monthly", type: .autoRenewable, publications: ["the-monthly"], access: .archive)])

    @Test func issueUnlockedAtPeriodStart_countsForTheTransactionStartingThen_evenWhenAGrantStartsThenToo() {
        // The transaction and a short comp both start on 15 March: March is unlocked at the
        // period's start by the transaction, whatever the grant beside it.
        let transaction = Transaction(
            transactionId: "t", originalTransactionId: "t", productId: "monthly", purchase: Self.instant(15, month: 3),
            expires: Self.instant(15, month: 4), environment: .production)
        let comp = Grant(
            grantId: "g-comp", source: "comp", scope: .span(publications: ["the-monthly"], access: .archive, window: nil),
            start: Self.instant(15, month: 3), end: Self.instant(20, month: 3))
        let now = Self.instant(1, month: 6)
        let alone = ConsumptionShare(
            transactionId: "t", history: PurchaseHistory(transactions: [transaction]), catalog: Self.catalog, environment: .production,
            at: now, served: [])
        #expect(alone.readable == 2)
        let withComp = ConsumptionShare(
            transactionId: "t", history: PurchaseHistory(transactions: [transaction], grants: [comp]), catalog: Self.catalog,
            environment: .production, at: now, served: [])
        #expect(withComp.readable == alone.readable)
    }
}
