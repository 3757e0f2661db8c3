import Glibc

/// A buffered writer to a file descriptor.
final class OutputFile {
    private let descriptor: Int32
    private let path: String
    private let ownsDescriptor: Bool
    /// For a named file: the temporary sibling written first and renamed over `path` by ``finish()``.
    private let temporaryPath: String?
    private var finished = false
    private var pending: [UInt8] = []
    private let flushSize = 1 << 20

    /// Opens `path` for writing atomically: bytes go to a temporary file beside it, which
    /// ``finish()`` renames over `path`, so an interrupted run never leaves a half-written file.
    /// `-` writes to standard output.
    init(path: String) throws(CLIError) {
        self.path = path
        if path == "-" {
            descriptor = 1
            ownsDescriptor = false
            temporaryPath = nil
        } else {
            let temporary = path + ".partial-\(getpid())"
            // Registered before it exists, so a stop signal at any moment removes it.
            TemporaryFiles.register(temporary)
            descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else {
                let reason = String(cString: strerror(errno))
                TemporaryFiles.unregister(temporary)
                throw CLIError.cannotWrite(path: path, reason: reason)
            }
            ownsDescriptor = true
            temporaryPath = temporary
        }
        pending.reserveCapacity(flushSize + 4096)
    }

    /// Writes what is queued and, for a named file, makes it durable and renames it into place.
    func finish() throws(CLIError) {
        try flush()
        guard let temporaryPath, !finished else { return }
        guard fsync(descriptor) == 0, rename(temporaryPath, path) == 0 else {
            throw CLIError.cannotWrite(path: path, reason: String(cString: strerror(errno)))
        }
        finished = true
        TemporaryFiles.unregister(temporaryPath)
    }

    /// Writes to an already open descriptor (not closed by this writer).
    init(descriptor: Int32, name: String) {
        self.descriptor = descriptor
        path = name
        ownsDescriptor = false
        temporaryPath = nil
    }

    deinit {
        if ownsDescriptor { close(descriptor) }
        if let temporaryPath, !finished {
            unlink(temporaryPath)
            TemporaryFiles.unregister(temporaryPath)
        }
    }

    /// Whether the descriptor is a terminal.
    var isTerminal: Bool { isatty(descriptor) == 1 }

    /// Queues bytes, writing when the buffer is full.
    func write(_ bytes: [UInt8]) throws(CLIError) {
        pending.append(contentsOf: bytes)
        if pending.count >= flushSize { try flush() }
    }

    /// Queues text.
    func write(_ text: String) throws(CLIError) { try write(Array(text.utf8)) }

    /// Writes everything queued.
    func flush() throws(CLIError) {
        var offset = 0
        while offset < pending.count {
            let count = pending.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if count < 0 {
                if errno == EINTR { continue }
                throw CLIError.cannotWrite(path: path, reason: String(cString: strerror(errno)))
            }
            offset += count
        }
        pending.removeAll(keepingCapacity: true)
    }
}
