/// A UTC calendar date and time of day, and the conversions to and from ``Instant``.
///
/// Uses the proleptic Gregorian calendar (days-from-civil algorithm), so no Foundation calendar
/// or time zone database is involved: every instant in the engine is UTC (R1).
public struct CivilTime: Hashable, Sendable {
    public var year: Int
    /// 1 to 12.
    public var month: Int
    /// 1 to the month's length.
    public var day: Int
    public var hour: Int
    public var minute: Int
    public var second: Int
    public var millisecond: Int

    /// Creates a civil time; fields are not range-checked (see ``isValid``).
    public init(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0, millisecond: Int = 0) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
        self.millisecond = millisecond
    }

    /// The civil time of an instant, in UTC.
    public init(_ instant: Instant) {
        let ms = instant.milliseconds
        var days = ms / Instant.millisecondsPerDay
        var rest = ms % Instant.millisecondsPerDay
        if rest < 0 {
            rest += Instant.millisecondsPerDay
            days -= 1
        }
        let date = CivilTime.civil(fromDays: days)
        self.init(
            year: date.year, month: date.month, day: date.day,
            hour: Int(rest / 3_600_000), minute: Int(rest / 60_000 % 60), second: Int(rest / 1000 % 60),
            millisecond: Int(rest % 1000))
    }

    /// Whether every field is in range (day within the month's length, hour below 24, …).
    public var isValid: Bool {
        (1...12).contains(month) && day >= 1 && day <= CivilTime.daysIn(year: year, month: month)
            && (0..<24).contains(hour) && (0..<60).contains(minute) && (0..<60).contains(second)
            && (0..<1000).contains(millisecond)
    }

    /// The instant of this civil time in UTC.
    public var instant: Instant {
        let days = CivilTime.days(fromCivil: year, month, day)
        let ms = ((days * 24 + Int64(hour)) * 60 + Int64(minute)) * 60_000 + Int64(second) * 1000 + Int64(millisecond)
        return Instant(milliseconds: ms)
    }

    /// The length of a month, leap years included.
    public static func daysIn(year: Int, month: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
    public static func days(fromCivil year: Int, _ month: Int, _ day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let m = Int64(month)
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The proleptic Gregorian date of a day count since 1970-01-01.
    public static func civil(fromDays days: Int64) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        return (Int(year), Int(month), Int(day))
    }

    /// `2020-02-20T12:00:00Z`, with `.mmm` before the `Z` when the milliseconds are not zero.
    public var rfc3339: String {
        guard (0...9999).contains(year) else {
            var text = "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2))"
            if millisecond != 0 { text += ".\(pad(millisecond, 3))" }
            return text + "Z"
        }
        // Digits written straight into the string's storage: this runs for every instant in every answer.
        let length = millisecond != 0 ? 24 : 20
        return String(unsafeUninitializedCapacity: length) { bytes in
            var position = 0
            func put(_ byte: UInt8) {
                bytes[position] = byte
                position += 1
            }
            func digits(_ value: Int, _ width: Int) {
                var divisor = 1
                for _ in 1..<width { divisor *= 10 }
                while divisor > 0 {
                    put(UInt8(ascii: "0") + UInt8(value / divisor % 10))
                    divisor /= 10
                }
            }
            digits(year, 4)
            put(UInt8(ascii: "-"))
            digits(month, 2)
            put(UInt8(ascii: "-"))
            digits(day, 2)
            put(UInt8(ascii: "T"))
            digits(hour, 2)
            put(UInt8(ascii: ":"))
            digits(minute, 2)
            put(UInt8(ascii: ":"))
            digits(second, 2)
            if millisecond != 0 {
                put(UInt8(ascii: "."))
                digits(millisecond, 3)
            }
            put(UInt8(ascii: "Z"))
            return position
        }
    }

    /// An instant for people: `2020-02-20 12:00` UTC, or `never` for ``Instant/distantFuture``.
    public static func readable(_ instant: Instant) -> String { instant == .distantFuture ? "never" : CivilTime(instant).readable }

    /// `2020-02-20 12:00` (seconds added when not zero), for people.
    public var readable: String {
        var text = "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2)) \(pad(hour, 2)):\(pad(minute, 2))"
        if second != 0 || millisecond != 0 { text += ":\(pad(second, 2))" }
        if millisecond != 0 { text += ".\(pad(millisecond, 3))" }
        return text
    }

    private func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(abs(value))
        return (value < 0 ? "-" : "") + String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
