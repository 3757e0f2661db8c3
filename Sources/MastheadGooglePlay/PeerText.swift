/// Text a peer sent (a token's claim, Google's error message) as an error shows it.
enum PeerText {
    /// `text` with at most `limit` characters (an ellipsis past them) and the characters that
    /// could change how a log line reads escaped: C0 and C1 controls, DEL, the line and paragraph
    /// separators (U+2028, U+2029) and the bidirectional embeddings, overrides and isolates
    /// (U+202A–U+202E, U+2066–U+2069).
    static func shown(_ text: String, limit: Int = 64) -> String {
        var shown = ""
        for (index, scalar) in text.unicodeScalars.enumerated() {
            guard index < limit else { return shown + "…" }
            shown += escapes(scalar) ? scalar.escaped(asASCII: true) : String(scalar)
        }
        return shown
    }

    /// Whether `scalar` is shown escaped.
    static func escapes(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00..<0x20, 0x7F...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}
