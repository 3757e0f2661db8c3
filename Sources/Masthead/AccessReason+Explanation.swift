/// The reasons in words, for reports meant for people (R16).
extension AccessReason {
    /// Why `issue` is readable, naming the period (and its start) from `entitlement`, and the
    /// grants that gave it (R17): those of the period published into, starting the period, or
    /// streaming at the as-of instant.
    public func explanation(of issue: Issue, in entitlement: PublicationEntitlement) -> String {
        switch self {
        case .publishedDuringPeriod(let period):
            "published during period #\(period)" + AccessReason.grants(entitlement.periods[period]) { $0.contains(issue.published) }
        case .unlockedAtPeriodStart(let period):
            "unlocked when period #\(period) started (\(CivilTime.readable(entitlement.periods[period].start)))"
                + AccessReason.grants(entitlement.periods[period]) { $0.start == entitlement.periods[period].start }
        case .streaming(let period, let window):
            "streaming, period #\(period) active" + (window.map { ", latest \($0) issues" } ?? "")
                + AccessReason.grants(entitlement.periods[period]) { $0.contains(entitlement.at) }
        case .singlePurchase(let transactionId): "bought on its own (transaction \(transactionId))"
        case .granted(let grantId, let source): "given by \(Grant.words(forSource: source)) \(grantId)"
        case .free: "free issue"
        }
    }

    /// The grants among a period's intervals that `gave` selects (R17), as ", under print
    /// subscription g-123, 2020-01-01 – 2020-12-31"; empty when none.
    static func grants(_ period: Period, _ gave: (Interval) -> Bool) -> String {
        let labels = period.intervals.filter { $0.kind == .grant && gave($0) }.map { interval in
            "\(Grant.words(forSource: interval.productId)) \(interval.transactionId), \(Grant.dates(from: interval.start, to: interval.end))"
        }
        return labels.isEmpty ? "" : ", under " + labels.joined(separator: "; ")
    }
}

extension IssueAccess {
    /// The decision in words, as `masthead check` prints it for the issue: every reason it is
    /// readable (``AccessReason/explanation(of:in:)``, the main one first, joined by "; "), or why
    /// it is not (``Denial/explanation``).
    public func explanation(of issue: Issue, in entitlement: PublicationEntitlement) -> String {
        switch self {
        case .readable(let reasons): reasons.map { $0.explanation(of: issue, in: entitlement) }.joined(separator: "; ")
        case .notReadable(let denial): denial.explanation
        }
    }

    /// The code of the decision's main reason: the first reason it is readable, or why it is not
    /// (``AccessReason/name``, ``Denial/name``), as the JSON answers write its `kind`.
    public var reasonName: String {
        switch self {
        case .readable(let reasons): reasons[0].name
        case .notReadable(let denial): denial.name
        }
    }
}

extension Denial {
    /// Why the issue is not readable.
    public var explanation: String {
        switch self {
        case .notYetPublished: "not yet published"
        case .notSubscribed: "no subscription, purchase or grant gives it"
        case .grantRevoked(let grantId, let source, let at): "\(Grant.words(forSource: source)) \(grantId) was revoked on \(CivilTime.readable(at))"
        case .refunded(let transactionId): "the purchase was refunded (transaction \(transactionId))"
        case .endedByRevocation(let transactionId, let at, let type, let percentage):
            (type == .familyRevoke
                ? "Family Sharing of the purchase ended on \(CivilTime.readable(at))"
                : "a prorated refund\(percentage.map { " of \(Denial.percentText($0))" } ?? "") ended the purchase on \(CivilTime.readable(at))")
                + " (transaction \(transactionId))"
        case .publishedBeforeSubscription(let start): "published before the subscription started (\(CivilTime.readable(start)))"
        case .publishedDuringLapse(let start, let end):
            "published during a lapse (\(CivilTime.readable(start)) → \(end.map(CivilTime.readable) ?? "still lapsed"))"
        case .streamingInactive(let since): "streaming access is not active" + (since.map { " (lapsed \(CivilTime.readable($0)))" } ?? "")
        case .outsideStreamingWindow(let window): "older than the latest \(window) issues streaming gives"
        }
    }

    /// A share in thousandths of a percent (Apple's `revocationPercentage`) as a percentage:
    /// 50000 as "50%", 33333 as "33.333%".
    public static func percentText(_ milliunits: Int32) -> String {
        let magnitude = Int64(milliunits).magnitude
        let sign = milliunits < 0 ? "-" : ""
        guard magnitude % 1000 != 0 else { return "\(sign)\(magnitude / 1000)%" }
        var digits = String(magnitude % 1000)
        digits = String(repeating: "0", count: 3 - digits.count) + digits
        while digits.hasSuffix("0") { digits.removeLast() }
        return "\(sign)\(magnitude / 1000).\(digits)%"
    }
}
