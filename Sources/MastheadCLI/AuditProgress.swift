import MastheadAudit
import MastheadClock
import MastheadFormats

/// The progress line an audit keeps on a terminal's standard error: done / total, rate, ETA.
/// Redrawn in place (carriage return, erase to end of line) at most four times a second, and
/// erased at the end; an audit whose standard error is not a terminal prints none.
struct AuditProgress {
    private let started: Double
    private var lastDrawn = -1.0

    /// Starts the clock for the rate.
    init() {
        started = SystemClock.seconds()
    }

    /// Redraws the line if a quarter of a second has passed since the last time.
    mutating func update(_ position: AuditPosition, on errors: OutputFile) throws(CLIError) {
        let now = SystemClock.seconds()
        guard now - lastDrawn >= 0.25 else { return }
        lastDrawn = now
        try errors.write("\r" + Self.render(position, elapsed: now - started) + "\u{1B}[K")
        try errors.flush()
    }

    /// Erases the line.
    func finish(on errors: OutputFile) throws(CLIError) {
        guard lastDrawn >= 0 else { return }
        try errors.write("\r\u{1B}[K")
    }

    /// One progress line, such as `41200 users · 212.4 / 550.1 MB (38%) · 45210 users/s · ETA 7 s`.
    static func render(_ position: AuditPosition, elapsed: Double) -> String {
        let (users, done, total) = (position.users, position.done, position.total)
        var parts = ["\(users) users"]
        let rate = elapsed > 0 ? Double(users) / elapsed : 0
        switch position.unit {
        case .bytes:
            let megabytes = { (bytes: Int) in Self.decimal(Double(bytes) / 1_000_000) }
            parts.append(total.map { "\(megabytes(done)) / \(megabytes($0)) MB (\(percent(done, $0)))" } ?? "\(megabytes(done)) MB")
        case .users:
            if let total { parts[0] = "\(users) / \(total) users (\(percent(done, total)))" }
        }
        parts.append("\(Int(rate.rounded())) users/s")
        if let total, done > 0, elapsed > 0 {
            let remaining = Double(max(0, total - done)) * elapsed / Double(done)
            parts.append("ETA \(duration(remaining))")
        }
        return parts.joined(separator: " · ")
    }

    private static func percent(_ done: Int, _ total: Int) -> String {
        total > 0 ? "\(min(100, done * 100 / total))%" : "100%"
    }

    private static func decimal(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }

    private static func duration(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded(.up))
        return whole < 60 ? "\(whole) s" : "\(whole / 60) min \(whole % 60) s"
    }
}
