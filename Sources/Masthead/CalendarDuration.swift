/// A calendar length such as `P1M` or `P1Y2M10D`: what a non-renewing product lasts (R3, R6).
///
/// Weeks are kept as seven days. Adding works on the UTC calendar: months first (the day clamped
/// to the month's length, so Jan 31 + P1M is the last day of February), then days.
public struct CalendarDuration: Hashable, Sendable, CustomStringConvertible {
    public var years: Int
    public var months: Int
    public var days: Int

    /// Creates a duration; weeks are folded into days.
    public init(years: Int = 0, months: Int = 0, weeks: Int = 0, days: Int = 0) {
        self.years = years
        self.months = months
        self.days = days + weeks * 7
    }

    /// Parses ISO 8601 `PnYnMnWnD` (date part only; at least one component, no fractions).
    public init?(iso8601 text: String) {
        var utf8 = Substring(text).utf8[...]
        guard utf8.first == UInt8(ascii: "P") else { return nil }
        utf8 = utf8.dropFirst()
        var years = 0, months = 0, weeks = 0, days = 0
        var seen = 0
        var order = 0
        while !utf8.isEmpty {
            var value = 0
            var digits = 0
            while let byte = utf8.first, byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                guard digits < 6 else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
                digits += 1
                utf8 = utf8.dropFirst()
            }
            guard digits > 0, let unit = utf8.first else { return nil }
            utf8 = utf8.dropFirst()
            let position: Int
            switch unit {
            case UInt8(ascii: "Y"): years = value; position = 1
            case UInt8(ascii: "M"): months = value; position = 2
            case UInt8(ascii: "W"): weeks = value; position = 3
            case UInt8(ascii: "D"): days = value; position = 4
            default: return nil
            }
            guard position > order else { return nil }
            order = position
            seen += 1
        }
        guard seen > 0 else { return nil }
        self.init(years: years, months: months, weeks: weeks, days: days)
        guard self.years + self.months + self.days > 0 else { return nil }
    }

    public var description: String {
        var text = "P"
        if years != 0 { text += "\(years)Y" }
        if months != 0 { text += "\(months)M" }
        if days != 0 || text == "P" { text += "\(days)D" }
        return text
    }

    /// The instant this long after `instant`, by UTC calendar arithmetic.
    public func added(to instant: Instant) -> Instant {
        guard instant != .distantFuture else { return .distantFuture }
        var civil = CivilTime(instant)
        let totalMonths = civil.year * 12 + (civil.month - 1) + years * 12 + months
        civil.year = totalMonths / 12
        civil.month = totalMonths % 12 + 1
        civil.day = min(civil.day, CivilTime.daysIn(year: civil.year, month: civil.month))
        return civil.instant.adding(milliseconds: Int64(days) * Instant.millisecondsPerDay)
    }
}
