/// A maximal run of intervals with no gap between them, for one publication and access style (R8).
public struct Period: Hashable, Sendable {
    public var access: AccessStyle
    public var start: Instant
    /// The end of the run; ``Instant/distantFuture`` for a free subscription.
    public var end: Instant
    /// The intervals merged into this period, ordered by start.
    public var intervals: [Interval]

    /// Creates a period.
    public init(access: AccessStyle, start: Instant, end: Instant, intervals: [Interval]) {
        self.access = access
        self.start = start
        self.end = end
        self.intervals = intervals
    }

    /// Whether `instant` lies in `[start, end)`.
    public func contains(_ instant: Instant) -> Bool { start <= instant && instant < end }

    /// Merges intervals of one access style into periods: sorted by start, each interval whose
    /// start is at or before the current end joins the current period (R8).
    public static func merge(_ intervals: [Interval]) -> [Period] {
        let sorted = intervals.sorted {
            if ($0.start, $0.end) != ($1.start, $1.end) { return ($0.start, $0.end) < ($1.start, $1.end) }
            // A grant may share its id with a transaction (R17): the kind decides between them.
            if !$0.transactionId.sameBytes(as: $1.transactionId) { return $0.transactionId.precedesInBytes($1.transactionId) }
            return $0.kind.rawValue < $1.kind.rawValue
        }
        var periods: [Period] = []
        for interval in sorted {
            if let last = periods.last, last.access == interval.access, interval.start <= last.end {
                periods[periods.count - 1].end = max(last.end, interval.end)
                periods[periods.count - 1].intervals.append(interval)
            } else {
                periods.append(Period(access: interval.access, start: interval.start, end: interval.end, intervals: [interval]))
            }
        }
        return periods
    }
}
