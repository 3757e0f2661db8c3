/// Text a server sent (a header field's value, a framing line), made fit to quote in an error
/// message, which reaches logs and answers' bodies: at most ``maxBytes`` bytes of it, control
/// characters written as `\uXXXX`.
enum UpstreamText {
    /// The most bytes of quoted text, escapes included; the rest is cut and marked `…`.
    static let maxBytes = 100

    /// The text in double quotes: control characters (U+0000–U+001F, U+007F–U+009F), line and
    /// paragraph separators, bidirectional and other format characters written as `\uXXXX`, `"`
    /// and `\` escaped, cut to ``maxBytes`` bytes and marked `…` when longer.
    static func quoted(_ text: String) -> String {
        var quoted = ""
        for scalar in text.unicodeScalars {
            let piece = escaped(scalar)
            guard quoted.utf8.count + piece.utf8.count <= maxBytes else { return "\"" + quoted + "\"…" }
            quoted += piece
        }
        return "\"" + quoted + "\""
    }

    /// The bytes, read as UTF-8 (an invalid sequence as U+FFFD), quoted. Only the first
    /// ``maxBytes`` + 1 are read: each byte quotes as one byte or more, so more than ``maxBytes``
    /// are cut and marked all the same.
    static func quoted(_ bytes: ArraySlice<UInt8>) -> String {
        quoted(String(decoding: bytes.prefix(maxBytes + 1), as: UTF8.self))
    }

    /// A character as it is quoted.
    private static func escaped(_ scalar: Unicode.Scalar) -> String {
        switch scalar {
        case "\"": return "\\\""
        case "\\": return "\\\\"
        default: break
        }
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator:
            let hex = String(scalar.value, radix: 16, uppercase: true)
            return "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        default:
            return String(scalar)
        }
    }
}
