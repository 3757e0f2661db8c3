import Glibc

/// A buffered writer to a file descriptor.
final class OutputFile {
    private let descriptor: Int32
    private let path: String
    private let ownsDescriptor: Bool
    /// For a named file: the temporary sibling written first and renamed over `path` by ``finish()``.
    private let temporaryPath: String?
    /// For a named file: the mode the temporary file gets before it is renamed into place.
    private let finalMode: mode_t
    private var finished = false
    private var pending: [UInt8] = []
    private let flushSize = 1 << 20

    /// Opens `path` for writing atomically: bytes go to a temporary file beside it, which
    /// ``finish()`` renames over `path`, so an interrupted run never leaves a half-written file.
    /// `-` writes to standard output.
    ///
    /// An existing `path` must be a regular file: a symbolic link, a directory, a FIFO or a device
    /// is refused, not replaced. The temporary file has an unpredictable name and is created
    /// exclusively (never through a link an attacker planted), readable by its owner only until
    /// ``finish()`` gives it the mode of the file it replaces (a new file: 0644 less the umask).
    init(path: String) throws(CLIError) {
        self.path = path
        if path == "-" {
            descriptor = 1
            ownsDescriptor = false
            temporaryPath = nil
            finalMode = 0
        } else {
            finalMode = try Self.modeOfRegularFile(at: path) ?? (0o644 & ~Self.currentUmask())
            var temporary = ""
            var opened: Int32 = -1
            // A name already taken (by chance or by someone else) is skipped, never reused.
            for _ in 0..<16 {
                temporary = path + ".partial-" + Self.randomSuffix()
                // Registered before it exists, so a stop signal at any moment removes it.
                TemporaryFiles.register(temporary)
                opened = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
                if opened >= 0 { break }
                let failure = errno
                TemporaryFiles.unregister(temporary)
                guard failure == EEXIST else { throw CLIError.cannotWrite(path: path, reason: String(cString: strerror(failure))) }
            }
            guard opened >= 0 else { throw CLIError.cannotWrite(path: path, reason: "no unused temporary name beside it") }
            descriptor = opened
            ownsDescriptor = true
            temporaryPath = temporary
        }
        pending.reserveCapacity(flushSize + 4096)
    }

    /// The permission bits of the regular file at `path`, nil when nothing is there; anything
    /// else there (a symbolic link, a directory, a FIFO, a device, a socket) is refused.
    private static func modeOfRegularFile(at path: String) throws(CLIError) -> mode_t? {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { return nil }
            throw CLIError.cannotWrite(path: path, reason: String(cString: strerror(errno)))
        }
        let kind: String
        switch info.st_mode & S_IFMT {
        case S_IFREG: return info.st_mode & 0o777
        case S_IFLNK: kind = "a symbolic link"
        case S_IFDIR: kind = "a directory"
        case S_IFIFO: kind = "a FIFO"
        case S_IFCHR: kind = "a character device"
        case S_IFBLK: kind = "a block device"
        case S_IFSOCK: kind = "a socket"
        default: kind = "not a regular file"
        }
        throw CLIError.cannotWrite(
            path: path, reason: "\(kind), not a regular file; only a regular file is replaced (use - for standard output)")
    }

    /// The process's file mode creation mask (read by setting it, then set back).
    private static func currentUmask() -> mode_t {
        let mask = umask(0o022)
        umask(mask)
        return mask
    }

    /// 16 random hexadecimal digits from the system's generator.
    private static func randomSuffix() -> String {
        var generator = SystemRandomNumberGenerator()
        let text = String(generator.next() as UInt64, radix: 16)
        return String(repeating: "0", count: 16 - text.count) + text
    }

    /// Writes what is queued and, for a named file, makes it durable and renames it into place.
    func finish() throws(CLIError) {
        try flush()
        guard let temporaryPath, !finished else { return }
        guard fchmod(descriptor, finalMode) == 0, fsync(descriptor) == 0, rename(temporaryPath, path) == 0 else {
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
        finalMode = 0
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
