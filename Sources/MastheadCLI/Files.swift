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
    /// The memory read into: bytes `start..<end` are read and not yet returned.
    private var block: LineBlock
    private var start = 0
    private var end = 0
    private var finished = false
    /// The number of the line last returned, from 1.
    private(set) var lineNumber = 0
    /// Bytes of the file before the block's first byte.
    private var blockOffset = 0

    /// Bytes of the input consumed so far (through the line last returned).
    var bytesConsumed: Int { blockOffset + start }

    /// Opens `path` for reading; `-` reads standard input.
    init(path: String, chunkSize: Int = 4 << 20) throws(CLIError) {
        self.path = path
        if path == "-" {
            descriptor = 0
        } else {
            descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw CLIError.cannotRead(path: path, reason: String(cString: strerror(errno))) }
        }
        block = LineBlock(path: path, capacity: chunkSize)
    }

    deinit { if descriptor > 0 { close(descriptor) } }

    /// Calls `body` with the next line (without its `\n` or `\r\n`); returns false at the end.
    func next<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) throws -> R? {
        guard let range = try nextRange() else { return nil }
        return try body(UnsafeBufferPointer(rebasing: UnsafeBufferPointer(block.memory)[range]))
    }

    /// The next whole lines, at most `maxLines`, in a block of their own: the file's bytes were
    /// read into the block's memory and are not copied again (only a partial last line moves on
    /// to the next block). Each line comes with its number and byte range in the block, without
    /// its `\n` or `\r\n`; nil at the end of the input.
    func nextLines(max maxLines: Int) throws(CLIError) -> (block: LineBlock, lines: [(number: Int, range: Range<Int>)])? {
        var lines: [(number: Int, range: Range<Int>)] = []
        while lines.count < maxLines, let range = try nextRange(refill: lines.isEmpty) {
            lines.append((lineNumber, range))
        }
        guard !lines.isEmpty else { return nil }
        // The block goes with its lines; what follows the last line starts a new block.
        let full = block
        block = LineBlock(path: path, capacity: full.memory.count)
        let remaining = end - start
        if remaining > 0 { _ = memcpy(block.memory.baseAddress!, full.memory.baseAddress! + start, remaining) }
        blockOffset += start
        start = 0
        end = remaining
        return (full, lines)
    }

    /// The range of the next line in the block; nil at the end, or, when `refill` is false, when
    /// the block holds no further whole line.
    private func nextRange(refill: Bool = true) throws(CLIError) -> Range<Int>? {
        while true {
            let base = block.memory.baseAddress!
            if start < end, let hit = memchr(base + start, 0x0A, end - start) {
                let newline = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                defer { start = newline + 1 }
                lineNumber += 1
                return lineRange(start, newline)
            }
            if finished {
                guard start < end else { return nil }
                defer { start = end }
                lineNumber += 1
                return lineRange(start, end)
            }
            guard refill else { return nil }
            try fill()
        }
    }

    /// A line's bytes without a trailing `\r`.
    private func lineRange(_ lineStart: Int, _ lineEnd: Int) -> Range<Int> {
        lineEnd > lineStart && block.memory[lineEnd - 1] == 0x0D ? lineStart..<lineEnd - 1 : lineStart..<lineEnd
    }

    /// Moves the partial line to the front (into a larger block for a line longer than the
    /// block) and reads more.
    private func fill() throws(CLIError) {
        let remaining = end - start
        if remaining == block.memory.count {
            let larger = LineBlock(path: path, capacity: block.memory.count * 2)
            _ = memcpy(larger.memory.baseAddress!, block.memory.baseAddress! + start, remaining)
            block = larger
        } else if start > 0 {
            _ = memmove(block.memory.baseAddress!, block.memory.baseAddress! + start, remaining)
        }
        blockOffset += start
        start = 0
        end = remaining
        while true {
            let count = Glibc.read(descriptor, block.memory.baseAddress! + end, block.memory.count - end)
            if count < 0 {
                if errno == EINTR { continue }
                throw CLIError.cannotRead(path: path, reason: String(cString: strerror(errno)))
            }
            if count == 0 { finished = true } else { end += count }
            return
        }
    }
}

/// Input lines in memory of their own, shared by the records that point into it. Only the
/// bytes read into it are ever looked at.
final class LineBlock: @unchecked Sendable {
    /// The file they come from.
    let path: String
    /// Owned; written only by the reader before the block is handed on, read-only afterwards.
    let memory: UnsafeMutableBufferPointer<UInt8>

    init(path: String, capacity: Int) {
        self.path = path
        memory = .allocate(capacity: capacity)
    }

    deinit { memory.deallocate() }

    /// The bytes of `range`, valid while the block is.
    func bytes(_ range: Range<Int>) -> UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: UnsafeBufferPointer(memory)[range]) }
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
