import Foundation
import Glibc
import MastheadJSON
import Synchronization

/// The optional access log (the `accessLog` setting): one JSON line per answered request, with
/// its time, method, path (no query; an app account token in the path written as
/// `{appAccountToken}`), status, body bytes and duration in microseconds.
///
/// The event loops never wait for the disk: a request appends its line to a bounded buffer under
/// a lock, and one thread writes the buffer out. A line that does not fit (the disk is slower
/// than the requests) is dropped and counted (``droppedLines``, `masthead_access_log_dropped_total`).
public final class AccessLog: Sendable {
    /// The most bytes of lines waiting to be written; more are dropped.
    public static let maxBufferedBytes = 1 << 20

    private let descriptor: Int32
    private let closesDescriptor: Bool
    private let pending = Mutex<(bytes: [UInt8], closed: Bool)>(([], false))
    private let wake = DispatchSemaphore(value: 0)
    private let stopped = DispatchSemaphore(value: 0)
    private let dropped = Atomic<Int>(0)

    /// Opens the log: `-` for standard error, else the regular file at `destination`, appended to
    /// and created readable by its owner only (0600). A symbolic link, a FIFO, a device or a folder
    /// is refused (opening never waits on a FIFO's reader).
    /// - Throws: ``ConfigurationError`` naming the file when it cannot be opened or is not a regular file.
    public init(destination: String) throws(ConfigurationError) {
        if destination == "-" {
            descriptor = 2
            closesDescriptor = false
        } else {
            descriptor = try AccessLog.openRegularFile(destination)
            closesDescriptor = true
        }
        let thread = Thread { [self] in
            writeLines()
            stopped.signal()
        }
        thread.name = "access-log"
        thread.start()
    }

    /// Opens `path` to append to, without following a symbolic link or waiting on a FIFO, and
    /// checks that it is a regular file.
    private static func openRegularFile(_ path: String) throws(ConfigurationError) -> Int32 {
        let opened = Glibc.open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0o600)
        guard opened >= 0 else {
            // ENXIO: a FIFO without a reader (or a device), which O_NONBLOCK does not wait for.
            let reason =
                switch errno {
                case ELOOP: "it is a symbolic link"
                case ENXIO: "it is not a regular file"
                default: String(cString: strerror(errno))
                }
            throw .invalid("accessLog: cannot open \(path): \(reason)")
        }
        var status = stat()
        guard fstat(opened, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            Glibc.close(opened)
            throw .invalid("accessLog: \(path) is not a regular file (use - for standard error)")
        }
        return opened
    }

    /// Lines dropped because the buffer was full, or lost to a failed write.
    public var droppedLines: Int { dropped.load(ordering: .relaxed) }

    /// Queues one request's line; never waits for the disk.
    func record(method: String, path: String, status: Int, bytes: Int, microseconds: Int64, at time: String) {
        var writer = JSONWriter(capacity: 160 + path.utf8.count)
        writer.beginObject()
        writer.field("time", time)
        writer.field("method", method)
        writer.field("path", path)
        writer.field("status", Int64(status))
        writer.field("bytes", Int64(bytes))
        writer.field("durationMicroseconds", microseconds)
        writer.endObject()
        var line = writer.bytes
        line.append(0x0A)
        let queued = pending.withLock { state -> Bool in
            guard !state.closed, state.bytes.count + line.count <= Self.maxBufferedBytes else { return false }
            state.bytes += line
            return true
        }
        if queued { wake.signal() } else { dropped.add(1, ordering: .relaxed) }
    }

    /// Writes what is queued, stops the writing thread and closes the file.
    public func close() {
        pending.withLock { $0.closed = true }
        wake.signal()
        stopped.wait()
        if closesDescriptor { Glibc.close(descriptor) }
    }

    /// The writing thread: takes the whole buffer at each wake-up and writes it out.
    private func writeLines() {
        while true {
            wake.wait()
            let (bytes, closed) = pending.withLock { state -> ([UInt8], Bool) in
                defer { state.bytes.removeAll(keepingCapacity: true) }
                return (state.bytes, state.closed)
            }
            if !bytes.isEmpty && !write(bytes) {
                dropped.add(bytes.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }, ordering: .relaxed)
            }
            if closed { return }
        }
    }

    /// Writes every byte (retrying partial writes and interruptions); false when a write failed.
    private func write(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += written
            }
            return true
        }
    }
}
