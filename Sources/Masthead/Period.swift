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

    /// Merges the intervals of one access style into periods: sorted by start, each interval
    /// whose start is at or before the current end joins the current period (R8).
    ///
    /// Sorts the intervals' positions, not the intervals, and gives each period its intervals in
    /// one array of the right size.
    public static func merge(_ intervals: [Interval], access: AccessStyle) -> [Period] {
        withUnsafeTemporaryAllocation(of: Int.self, capacity: intervals.count) { buffer in
            var count = 0
            for index in intervals.indices where intervals[index].access == access {
                buffer[count] = index
                count += 1
            }
            var order = UnsafeMutableBufferPointer(rebasing: buffer[..<count])
            order.sort { a, b in
                let (first, second) = ((intervals[a].start, intervals[a].end), (intervals[b].start, intervals[b].end))
                if first != second { return first < second }
                // A grant may share its id with a transaction (R17): the kind decides between them.
                if !intervals[a].transactionId.sameBytes(as: intervals[b].transactionId) {
                    return intervals[a].transactionId.precedesInBytes(intervals[b].transactionId)
                }
                return intervals[a].kind.rawValue < intervals[b].kind.rawValue
            }
            var periods: [Period] = []
            var runStart = 0
            while runStart < count {
                var end = intervals[order[runStart]].end
                var runEnd = runStart + 1
                while runEnd < count && intervals[order[runEnd]].start <= end {
                    end = max(end, intervals[order[runEnd]].end)
                    runEnd += 1
                }
                periods.append(
                    Period(access: access, start: intervals[order[runStart]].start, end: end, intervals: order[runStart..<runEnd].map { intervals[$0] }))
                runStart = runEnd
            }
            return periods
        }
    }
}
