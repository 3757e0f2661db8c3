import Masthead

/// Test values: "The Monthly" with issues on the 1st of each month of 2020 at 00:00 UTC.
enum Mock {
    static func instant(_ text: String) -> Instant {
        // "2020-02-20T12:00" or "2020-02-20T12:00:00.001"
        let parts = text.split(whereSeparator: { "-T:.".contains($0) }).map { Int($0)! }
        return CivilTime(
            year: parts[0], month: parts[1], day: parts[2], hour: parts.count > 3 ? parts[3] : 0,
            minute: parts.count > 4 ? parts[4] : 0, second: parts.count > 5 ? parts[5] : 0,
            millisecond: parts.count > 6 ? parts[6] : 0
        ).instant
    }

    static func monthly(freeMonths: Set<Int> = [], extraIssues: [Issue] = []) -> Publication {
        Publication(
            id: "the-monthly", title: "The Monthly",
            issues: (1...12).map { month in
                Issue(id: String(format2020: month), published: instant("2020-\(month)-01T00:00"), isFree: freeMonths.contains(month))
            } + extraIssues)
    }

    static let products: [Product] = [
        Product(productId: "monthly", type: .autoRenewable, publications: ["the-monthly"], access: .archive),
        Product(productId: "premium", type: .autoRenewable, publications: ["the-monthly"], access: .archive),
        Product(productId: "reader", type: .autoRenewable, publications: ["the-monthly"], access: .streaming),
        Product(productId: "reader6", type: .autoRenewable, publications: ["the-monthly"], access: .streaming, window: 6),
        Product(productId: "reader2", type: .autoRenewable, publications: ["the-monthly"], access: .streaming, window: 2),
        Product(productId: "pass1m", type: .nonRenewing, publications: ["the-monthly"], access: .archive, duration: CalendarDuration(months: 1)),
        Product(productId: "pass3m", type: .nonRenewing, publications: ["the-monthly"], access: .archive, duration: CalendarDuration(months: 3)),
        Product(productId: "passweek", type: .nonRenewing, publications: ["the-monthly"], access: .streaming, duration: CalendarDuration(weeks: 1)),
        Product(productId: "free", type: .free, publications: ["the-monthly"], access: .archive),
        Product(productId: "issue-05", publication: "the-monthly", issue: "2020-05"),
        Product(productId: "bundle", type: .autoRenewable, publications: ["the-monthly", "the-weekly"], access: .archive),
    ]

    static let weekly = Publication(
        id: "the-weekly", title: "The Weekly",
        issues: (0..<52).map { week in Issue(id: "w\(week + 1)", published: instant("2020-01-06T00:00").adding(milliseconds: Int64(week) * 7 * Instant.millisecondsPerDay)) })

    static func catalog(_ publication: Publication = monthly()) -> Catalog {
        Catalog(publications: [publication, weekly], products: products)
    }

    static func engine(_ publication: Publication = monthly()) -> EntitlementEngine { EntitlementEngine(catalog: catalog(publication)) }

    /// An auto-renewable transaction `[from, to)`.
    static func renewal(
        _ id: String, _ product: String = "monthly", _ from: String, _ to: String, original: String? = nil,
        cancelled: String? = nil, upgraded: Bool = false, environment: Environment = .production
    ) -> Transaction {
        Transaction(
            transactionId: id, originalTransactionId: original ?? id, productId: product, purchase: instant(from),
            expires: instant(to), cancellation: cancelled.map(instant), isUpgraded: upgraded, environment: environment)
    }

    /// A purchase without expiry (non-renewing, free, single issue).
    static func purchase(_ id: String, _ product: String, _ at: String, cancelled: String? = nil) -> Transaction {
        Transaction(transactionId: id, productId: product, purchase: instant(at), cancellation: cancelled.map(instant))
    }

    static func evaluate(
        _ transactions: [Transaction], renewals: [RenewalInfo] = [], at: String, publication: Publication = monthly(),
        environment: Environment = .production
    ) -> PublicationEntitlement {
        engine(publication).evaluate(
            PurchaseHistory(transactions: transactions, renewals: renewals), publication: publication, at: instant(at),
            environment: environment)
    }
}

extension String {
    init(format2020 month: Int) { self = month < 10 ? "2020-0\(month)" : "2020-\(month)" }
}
