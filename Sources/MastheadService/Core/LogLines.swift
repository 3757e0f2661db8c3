import Glibc
import Synchronization

/// The lines a background part of the service writes (consumption information, webhook
/// deliveries), each begun with the part's name: to standard error, or to a test's sink.
final class LogLines: Sendable {
    /// What begins each line: `consumption: `.
    private let prefix: String
    private let sink: Mutex<@Sendable (String) -> Void>

    /// Lines begun with `prefix`, written to standard error.
    init(prefix: String) {
        self.prefix = prefix
        let standardError: @Sendable (String) -> Void = { line in
            let bytes = Array((line + "\n").utf8)
            _ = bytes.withUnsafeBytes { Glibc.write(2, $0.baseAddress, $0.count) }
        }
        sink = Mutex(standardError)
    }

    /// Sends the lines to `sink` instead (tests read them).
    func send(to sink: @escaping @Sendable (String) -> Void) { self.sink.withLock { $0 = sink } }

    /// Writes one line.
    func note(_ line: String) {
        let write = sink.withLock { $0 }
        write(prefix + line)
    }
}
