import Masthead

/// Instants as people read them in messages: RFC 3339 in UTC.
enum UTCTime {
    /// `2020-07-02T00:00:00Z` for `milliseconds` since the Unix epoch, with milliseconds only
    /// when they are not zero.
    static func text(milliseconds: Int64) -> String {
        let (seconds, fraction) = floorDivision(milliseconds, 1000)
        let (days, secondOfDay) = floorDivision(seconds, 86_400)
        let (year, month, day) = CivilTime.civil(fromDays: days)
        var text = "\(year)-\(twoDigits(month))-\(twoDigits(day))T"
        text += "\(twoDigits(secondOfDay / 3600)):\(twoDigits(secondOfDay / 60 % 60)):\(twoDigits(secondOfDay % 60))"
        if fraction != 0 {
            let digits = String(fraction)
            text += "." + String(repeating: "0", count: 3 - digits.count) + digits
        }
        return text + "Z"
    }

    /// The start of the second `milliseconds` falls in (rounding down, before 1970 too).
    static func wholeSecond(_ milliseconds: Int64) -> Int64 { floorDivision(milliseconds, 1000).quotient * 1000 }

    /// The quotient rounded down and the (non-negative) remainder.
    static func floorDivision(_ value: Int64, _ divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let remainder = value % divisor
        return remainder < 0 ? (value / divisor - 1, remainder + divisor) : (value / divisor, remainder)
    }

    private static func twoDigits(_ value: some BinaryInteger) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
