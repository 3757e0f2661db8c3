import Glibc
public import MastheadJSON

/// The DevTools protocol over `--remote-debugging-pipe`: Chromium reads commands from its fd 3
/// and writes answers and events to its fd 4, each message one JSON text ended by a NUL byte.
///
/// Reads are bounded: a message longer than ``maxMessageBytes`` fails rather than growing the
/// buffer without end. The pipe owns its two descriptors and closes them.
public final class DevToolsPipe {
    /// The longest message accepted.
    public let maxMessageBytes: Int

    /// Our end of the pipe Chromium reads.
    let toBrowser: Int32
    /// Our end of the pipe Chromium writes.
    let fromBrowser: Int32
    /// Bytes read and not yet returned as a message.
    private var buffer: [UInt8] = []
    /// How much of `buffer` is known to hold no NUL.
    private var scanned = 0

    /// - Parameter maxMessageBytes: 64 MiB by default (a full-page screenshot is a few MiB of base64).
    public init(toBrowser: Int32, fromBrowser: Int32, maxMessageBytes: Int = 64 << 20) {
        self.toBrowser = toBrowser
        self.fromBrowser = fromBrowser
        self.maxMessageBytes = maxMessageBytes
    }

    deinit {
        close(toBrowser)
        close(fromBrowser)
    }

    /// Writes one message and its NUL; throws `browserClosed("")` when the browser is gone.
    public func send(_ message: [UInt8]) throws(BrowserError) {
        let bytes = message + [0]
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { write(toBrowser, $0.baseAddress! + offset, bytes.count - offset) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw .browserClosed("") }
            offset += count
        }
    }

    /// The next message, or nil when none is complete by `deadline`; throws `browserClosed("")`
    /// at the end of the stream.
    public func receive(before deadline: ContinuousClock.Instant) throws(BrowserError) -> JSONDocument? {
        while true {
            if let end = buffer[scanned...].firstIndex(of: 0) {
                guard end <= maxMessageBytes else { throw .messageTooLarge(maxMessageBytes) }
                let message = Array(buffer[..<end])
                buffer.removeFirst(end + 1)
                scanned = 0
                do { return try JSONDocument(parsing: message) } catch { throw .malformedMessage("\(error)") }
            }
            scanned = buffer.count
            if buffer.count > maxMessageBytes { throw .messageTooLarge(maxMessageBytes) }
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { return nil }
            var poller = pollfd(fd: fromBrowser, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1))
            if ready < 0 && errno == EINTR { continue }
            guard ready >= 0 else { throw .browserClosed("poll errno \(errno)") }
            guard ready > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            let count = chunk.withUnsafeMutableBytes { read(fromBrowser, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw .browserClosed("") }
            buffer.append(contentsOf: chunk[..<count])
        }
    }
}
