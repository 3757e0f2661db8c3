import Glibc
import Synchronization

/// The lines a background part of the service writes (consumption information, webhook
/// deliveries), each begun with the part's name: to standard error, or to a test's sink.
final class LogLines: Sendable {
    /// What begins each line: `consumption: `.
    private let prefix: String
    private let sink: Mutex<Sink>

    /// Where lines go, held in a struct: a closure held by a `Mutex` itself is wrapped in two more
    /// reabstraction thunks each time `withLock` hands it out, so that each line would cost more
    /// than the one before.
    private struct Sink: Sendable {
        let write: @Sendable (String) -> Void
    }

    /// Lines begun with `prefix`, written to standard error.
    init(prefix: String) {
        self.prefix = prefix
        let standardError: @Sendable (String) -> Void = { line in
            let bytes = Array((line + "\n").utf8)
            _ = bytes.withUnsafeBytes { Glibc.write(2, $0.baseAddress, $0.count) }
        }
        sink = Mutex(Sink(write: standardError))
    }

    /// Sends the lines to `sink` instead (tests read them).
    func send(to sink: @escaping @Sendable (String) -> Void) { self.sink.withLock { $0 = Sink(write: sink) } }

    /// Writes one line.
    func note(_ line: String) {
        let sink = sink.withLock { $0 }
        sink.write(prefix + line)
    }
}
