import Glibc
public import Masthead

/// Parses the date texts App Store payloads and catalogs use (R2.1).
public enum DateText {
    /// The instants an App Store date may name, whether written as milliseconds or as text
    /// (R2.1): 1970-01-01T00:00:00Z through 9999-12-31T23:59:59.999Z. Milliseconds cannot be
    /// written before 1970, so neither can text; years past 9999 have no text form.
    public static let appStoreRange = Instant(milliseconds: 0)...Instant(milliseconds: 253_402_300_799_999)

    /// Parses RFC 3339 (`2020-02-01T00:00:00Z`, `2020-02-01T09:30:00.250+09:30`); fractions
    /// beyond milliseconds are truncated. Returns nil for anything else.
    public static func rfc3339(_ text: String) -> Instant? {
        var text = text
        return text.withUTF8 { rfc3339(bytes: $0) }
    }

    /// ``rfc3339(_:)`` on UTF-8 bytes.
    public static func rfc3339(bytes: UnsafeBufferPointer<UInt8>) -> Instant? {
        guard bytes.count >= 20, var civil = civilPrefix(bytes), bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: "t") || bytes[10] == UInt8(ascii: " ")
        else { return nil }
        var offset = 19
        if bytes[offset] == UInt8(ascii: ".") {
            offset += 1
            var digits = 0
            var millisecond = 0
            while offset < bytes.count, let digit = digit(bytes[offset]) {
                if digits < 3 { millisecond = millisecond * 10 + digit }
                digits += 1
                offset += 1
            }
            guard digits > 0 else { return nil }
            for _ in digits..<max(digits, 3) { millisecond *= 10 }
            civil.millisecond = millisecond
        }
        guard offset < bytes.count else { return nil }
        var offsetMinutes = 0
        switch bytes[offset] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            offset += 1
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            guard offset + 6 == bytes.count, bytes[offset + 3] == UInt8(ascii: ":"),
                let hours = number(bytes, offset + 1, 2), let minutes = number(bytes, offset + 4, 2), hours < 24, minutes < 60
            else { return nil }
            offsetMinutes = (hours * 60 + minutes) * (bytes[offset] == UInt8(ascii: "-") ? -1 : 1)
            offset += 6
        default:
            return nil
        }
        guard offset == bytes.count, civil.isValid else { return nil }
        return civil.instant.adding(milliseconds: -Int64(offsetMinutes) * 60_000)
    }

    /// Parses Apple's `yyyy-MM-dd HH:mm:ss VV` with a UTC zone name (`Etc/GMT`, `Etc/UTC`, `GMT`, `UTC`).
    /// Returns nil for anything else (the `_pst` twins are never read).
    public static func appleUTC(_ text: String) -> Instant? {
        var text = text
        return text.withUTF8 { appleUTC(bytes: $0) }
    }

    /// ``appleUTC(_:)`` on UTF-8 bytes.
    public static func appleUTC(bytes: UnsafeBufferPointer<UInt8>) -> Instant? {
        guard bytes.count > 20, let civil = civilPrefix(bytes), bytes[10] == UInt8(ascii: " "), bytes[19] == UInt8(ascii: " "),
            civil.isValid
        else { return nil }
        let zone = UnsafeBufferPointer(rebasing: bytes[20...])
        for name in utcZoneNames where name.utf8CodeUnitCount == zone.count && memcmp(name.utf8Start, zone.baseAddress!, zone.count) == 0 {
            return civil.instant
        }
        return nil
    }

    /// The zone names `appleUTC` accepts, Apple's own first.
    private static let utcZoneNames: [StaticString] = ["Etc/GMT", "Etc/UTC", "GMT", "UTC", "Etc/GMT+0", "Etc/GMT-0", "Etc/Zulu", "Z"]

    /// `yyyy-MM-dd?HH:mm:ss` at the start of `bytes`, separator unchecked.
    private static func civilPrefix(_ bytes: UnsafeBufferPointer<UInt8>) -> CivilTime? {
        guard bytes.count >= 19, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
            let century = twoDigits(bytes, 0), let yearOfCentury = twoDigits(bytes, 2), let month = twoDigits(bytes, 5),
            let day = twoDigits(bytes, 8), let hour = twoDigits(bytes, 11), let minute = twoDigits(bytes, 14), let second = twoDigits(bytes, 17)
        else { return nil }
        let year = century * 100 + yearOfCentury
        return CivilTime(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    }

    private static func number(_ bytes: UnsafeBufferPointer<UInt8>, _ offset: Int, _ length: Int) -> Int? {
        var value = 0
        for index in offset..<offset + length {
            guard let digit = digit(bytes[index]) else { return nil }
            value = value * 10 + digit
        }
        return value
    }

    /// The two digits at `offset` as a number; nil when either is not a digit.
    @inline(__always)
    private static func twoDigits(_ bytes: UnsafeBufferPointer<UInt8>, _ offset: Int) -> Int? {
        let tens = bytes[offset] &- UInt8(ascii: "0")
        let ones = bytes[offset + 1] &- UInt8(ascii: "0")
        guard tens < 10, ones < 10 else { return nil }
        return Int(tens) &* 10 &+ Int(ones)
    }

    private static func digit(_ byte: UInt8) -> Int? {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") ? Int(byte - UInt8(ascii: "0")) : nil
    }
}
