import Glibc

/// Reading and writing files with POSIX calls, reporting failures with `strerror`.
enum Files {
    /// The whole content of a file.
    static func read(_ path: String) throws(CLIError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw CLIError.cannotRead(path: path, reason: String(cString: strerror(errno))) }
        defer { close(descriptor) }
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw CLIError.cannotRead(path: path, reason: String(cString: strerror(errno)))
            }
            if count == 0 { return result }
            result.append(contentsOf: chunk[0..<count])
        }
    }

    /// Whether a path names a directory.
    /// The size in bytes of a regular file; nil for standard input (`-`), pipes and devices.
    static func size(_ path: String) -> Int? {
        var info = stat()
        guard path != "-", stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int(info.st_size)
    }

    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }
}

/// Reads a file (or standard input) line by line in large chunks, without holding it whole.
final class LineReader {
    private let descriptor: Int32
    private let path: String
    private var buffer: [UInt8]
    private var start = 0
    private var end = 0
    private var finished = false
    /// The number of the line last returned, from 1.
    private(set) var lineNumber = 0
    /// Bytes of the file before the buffer's first byte.
    private var bufferOffset = 0

    /// Bytes of the input consumed so far (through the line last returned).
    var bytesConsumed: Int { bufferOffset + start }

    /// Opens `path` for reading; `-` reads standard input.
    init(path: String, chunkSize: Int = 4 << 20) throws(CLIError) {
        self.path = path
        if path == "-" {
            descriptor = 0
        } else {
            descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw CLIError.cannotRead(path: path, reason: String(cString: strerror(errno))) }
        }
        buffer = [UInt8](repeating: 0, count: chunkSize)
    }

    deinit { if descriptor > 0 { close(descriptor) } }

    /// Calls `body` with the next line (without its `\n` or `\r\n`); returns false at the end.
    func next<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) throws -> R? {
        while true {
            let found: Int? = buffer.withUnsafeBufferPointer { bytes in
                guard start < end, let base = bytes.baseAddress,
                    let hit = memchr(base + start, 0x0A, end - start)
                else { return nil }
                return base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
            }
            if let newline = found {
                let lineStart = start
                start = newline + 1
                lineNumber += 1
                return try emit(lineStart, newline, body)
            }
            if finished {
                guard start < end else { return nil }
                let lineStart = start
                start = end
                lineNumber += 1
                return try emit(lineStart, end, body)
            }
            try fill()
        }
    }

    private func emit<R>(_ lineStart: Int, _ lineEnd: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        var stop = lineEnd
        if stop > lineStart && buffer[stop - 1] == 0x0D { stop -= 1 }
        return try buffer.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[lineStart..<stop])) }
    }

    /// Moves the partial line to the front (growing the buffer for a line longer than it) and reads more.
    private func fill() throws(CLIError) {
        if start > 0 {
            let remaining = end - start
            buffer.withUnsafeMutableBufferPointer { bytes in
                _ = memmove(bytes.baseAddress!, bytes.baseAddress! + start, remaining)
            }
            bufferOffset += start
            start = 0
            end = remaining
        }
        if end == buffer.count { buffer.append(contentsOf: repeatElement(0, count: buffer.count)) }
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress! + end, $0.count - end) }
            if count < 0 {
                if errno == EINTR { continue }
                throw CLIError.cannotRead(path: path, reason: String(cString: strerror(errno)))
            }
            if count == 0 { finished = true } else { end += count }
            return
        }
    }
}

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
            descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else { throw CLIError.cannotWrite(path: path, reason: String(cString: strerror(errno))) }
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
        if let temporaryPath, !finished { unlink(temporaryPath) }
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
