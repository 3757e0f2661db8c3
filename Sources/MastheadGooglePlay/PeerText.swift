/// Text a peer sent (a token's claim, Google's error message) as an error shows it.
enum PeerText {
    /// `text` with at most `limit` characters (an ellipsis past them) and its control characters escaped.
    static func shown(_ text: String, limit: Int = 64) -> String {
        var shown = ""
        for (index, scalar) in text.unicodeScalars.enumerated() {
            guard index < limit else { return shown + "…" }
            shown += scalar.value < 0x20 || scalar.value == 0x7F ? scalar.escaped(asASCII: true) : String(scalar)
        }
        return shown
    }
}
