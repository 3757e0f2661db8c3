/// A point in time: milliseconds since the Unix epoch, UTC (R1).
public struct Instant: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Milliseconds since 1970-01-01T00:00:00Z.
    public var milliseconds: Int64

    /// Creates an instant from milliseconds since the Unix epoch.
    public init(milliseconds: Int64) { self.milliseconds = milliseconds }

    /// An instant later than any real one: the end of an interval that never ends (R7).
    public static let distantFuture = Instant(milliseconds: .max)

    /// One day, in milliseconds.
    public static let millisecondsPerDay: Int64 = 86_400_000

    public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.milliseconds < rhs.milliseconds }

    /// The instant `milliseconds` later (saturating at ``distantFuture``).
    public func adding(milliseconds delta: Int64) -> Instant {
        let (sum, overflow) = milliseconds.addingReportingOverflow(delta)
        return overflow ? (delta > 0 ? .distantFuture : Instant(milliseconds: .min)) : Instant(milliseconds: sum)
    }

    /// RFC 3339 in UTC, with milliseconds only when they are not zero; `∞` for ``distantFuture``.
    public var description: String { self == .distantFuture ? "∞" : CivilTime(self).rfc3339 }
}
