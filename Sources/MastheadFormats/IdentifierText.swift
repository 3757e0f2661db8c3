/// Finds control characters in identifiers (transaction, original transaction and product ids).
enum IdentifierText {
    /// Whether a string's raw JSON bytes may hold a control character: they hold an escape (a
    /// backslash), DEL, or a byte past ASCII (U+0080–U+009F among others). Raw C0 bytes cannot
    /// occur: the JSON reader rejects them. Eight bytes at a time; most identifiers are one or
    /// two words.
    @inline(__always)
    static func mayHoldControlCharacter(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let start = bytes.baseAddress else { return false }
        let count = bytes.count
        guard count >= 8 else { return bytes.contains { $0 == 0x5C || $0 >= 0x7F } }
        let raw = UnsafeRawPointer(start)
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        var offset = 0
        while true {
            // The last word overlaps the previous one when the length is not a multiple of eight.
            let word = raw.loadUnaligned(fromByteOffset: min(offset, count - 8), as: UInt64.self)
            // Exact "has zero byte" tests for backslash and DEL, and the high bits.
            let backslash = word ^ (ones &* 0x5C)
            let delete = word ^ (ones &* 0x7F)
            if ((backslash &- ones) & ~backslash | (delete &- ones) & ~delete | word) & highs != 0 { return true }
            offset += 8
            if offset >= count { return false }
        }
    }

    /// Unicode's control characters (general category Cc): U+0000–U+001F and U+007F–U+009F.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// The text quoted, control characters written as `\uXXXX`, for error messages.
    static func escaped(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            if isControl(scalar) {
                let hex = String(scalar.value, radix: 16, uppercase: true)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
