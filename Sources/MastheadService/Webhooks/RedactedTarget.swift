/// A delivery target as it is shown (the deliveries listing, configuration errors): its user
/// and password and its query, which may carry a token, left out.
enum RedactedTarget {
    /// `url` with what comes between `://` and the first `@` of its authority dropped, and its
    /// query (from the first `?`) and fragment replaced by `?…`: `https://hooks.example/path?…`.
    /// A text that is not a URL is shown the same way, as far as these marks apply.
    static func text(_ url: String) -> String {
        var bytes = Array(url.utf8)
        var redacted = false
        if let cut = bytes.firstIndex(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) {
            bytes.removeSubrange(cut...)
            redacted = true
        }
        let schemeEnd = bytes.firstIndex(of: UInt8(ascii: ":")).flatMap { colon in
            bytes[colon...].starts(with: Array("://".utf8)) ? colon + 3 : nil
        }
        let authorityStart = schemeEnd ?? 0
        let authorityEnd = bytes[authorityStart...].firstIndex(of: UInt8(ascii: "/")) ?? bytes.endIndex
        if let at = bytes[authorityStart..<authorityEnd].lastIndex(of: UInt8(ascii: "@")) {
            bytes.removeSubrange(authorityStart...at)
        }
        return String(decoding: bytes, as: UTF8.self) + (redacted ? "?…" : "")
    }
}
