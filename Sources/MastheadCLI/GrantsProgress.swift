import MastheadClock

/// The progress line `grants import` keeps on a terminal's standard error: lines read, and bytes
/// of the total when the input is a regular file.
struct GrantsProgress {
    private let started = SystemClock.seconds()
    private var drawn = false

    /// Redraws the line, such as `grants import: 420000 lines · 31.5 / 75.0 MB (42%) · 98000 lines/s`.
    mutating func update(lines: Int, bytes: Int, total: Int?, on errors: OutputFile) throws(CLIError) {
        let elapsed = SystemClock.seconds() - started
        var parts = ["grants import: \(lines) lines", Self.megabytes(bytes, of: total)]
        if elapsed > 0 { parts.append("\(Int((Double(lines) / elapsed).rounded())) lines/s") }
        try errors.write("\r" + parts.joined(separator: " · ") + "\u{1B}[K")
        try errors.flush()
        drawn = true
    }

    /// Erases the line, if one is drawn, so that a message can take its place.
    mutating func erase(on errors: OutputFile) throws(CLIError) {
        guard drawn else { return }
        try errors.write("\r\u{1B}[K")
        drawn = false
    }

    private static func megabytes(_ bytes: Int, of total: Int?) -> String {
        let text = { (bytes: Int) in "\(bytes / 1_000_000).\(bytes % 1_000_000 / 100_000)" }
        guard let total, total > 0 else { return "\(text(bytes)) MB" }
        return "\(text(bytes)) / \(text(total)) MB (\(min(100, bytes * 100 / total))%)"
    }
}
