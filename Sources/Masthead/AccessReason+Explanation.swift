/// The reasons in words, for reports meant for people (R16).
extension AccessReason {
    /// Why the issue is readable, naming the period (and its start) from `entitlement`.
    public func explanation(in entitlement: PublicationEntitlement) -> String {
        switch self {
        case .publishedDuringPeriod(let period): "published during period #\(period)"
        case .unlockedAtPeriodStart(let period): "unlocked when period #\(period) started (\(CivilTime.readable(entitlement.periods[period].start)))"
        case .streaming(let period, let window): "streaming, period #\(period) active" + (window.map { ", latest \($0) issues" } ?? "")
        case .singlePurchase(let transactionId): "bought on its own (transaction \(transactionId))"
        case .free: "free issue"
        }
    }
}

extension Denial {
    /// Why the issue is not readable.
    public var explanation: String {
        switch self {
        case .notYetPublished: "not yet published"
        case .notSubscribed: "no subscription or purchase grants it"
        case .refunded(let transactionId): "the purchase was refunded (transaction \(transactionId))"
        case .publishedBeforeSubscription(let start): "published before the subscription started (\(CivilTime.readable(start)))"
        case .publishedDuringLapse(let start, let end):
            "published during a lapse (\(CivilTime.readable(start)) → \(end.map(CivilTime.readable) ?? "still lapsed"))"
        case .streamingInactive(let since): "streaming access is not active" + (since.map { " (lapsed \(CivilTime.readable($0)))" } ?? "")
        case .outsideStreamingWindow(let window): "older than the latest \(window) issues streaming gives"
        }
    }
}
