import Glibc

/// Reads a file (or standard input) line by line in large chunks, without holding it whole.
///
/// A line longer than ``maxLineBytes`` is not kept: its bytes are read and dropped up to its
/// newline, and it is handed out without them (its number only), so memory stays bounded by the
/// limit whatever the input (a stream without any newline included).
final class LineReader {
    private let descriptor: Int32
    private let path: String
    /// The memory read into: bytes `start..<end` are read and not yet returned.
    private var block: LineBlock
    private var start = 0
    private var end = 0
    private var finished = false
    /// Where the search for the current line's newline goes on: the bytes from `start` to here
    /// hold none, so a long line arriving in many reads is searched once, not once per read.
    private var searched = 0
    /// The longest line kept, in bytes before its `\n` (a `\r` there counts); a longer line
    /// comes out without its bytes.
    let maxLineBytes: Int
    /// The number of the line last returned, from 1.
    private(set) var lineNumber = 0
    /// Bytes of the file before the block's first byte.
    private var blockOffset = 0

    /// Bytes of the input consumed so far (through the line last returned).
    var bytesConsumed: Int { blockOffset + start }

    /// The size in bytes of the input when it is a regular file; nil for standard input (`-`),
    /// pipes and devices.
    let size: Int?

    /// What the reader found next.
    private enum Found {
        /// A line's bytes in the block.
        case line(Range<Int>)
        /// A line longer than ``maxLineBytes``, its bytes skipped.
        case tooLong
    }

    /// Opens `path` for reading; `-` reads standard input.
    init(path: String, chunkSize: Int = 4 << 20, maxLineBytes: Int = AuditConfiguration.defaultMaxLineBytes) throws(AuditError) {
        self.path = path
        self.maxLineBytes = max(1, maxLineBytes)
        var info = stat()
        size = path != "-" && stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG ? Int(info.st_size) : nil
        if path == "-" {
            descriptor = 0
        } else {
            descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw AuditError.cannotRead(path: path, reason: String(cString: strerror(errno))) }
        }
        block = LineBlock(path: path, capacity: chunkSize)
    }

    deinit { if descriptor > 0 { close(descriptor) } }

    /// Calls `body` with the next line (without its `\n` or `\r\n`), or with nil for a line
    /// longer than ``maxLineBytes``; nil at the end.
    func next<R>(_ body: (UnsafeBufferPointer<UInt8>?) throws -> R) throws -> R? {
        switch try nextLine() {
        case nil: return nil
        case .tooLong: return try body(nil)
        case .line(let range)?: return try body(UnsafeBufferPointer(rebasing: UnsafeBufferPointer(block.memory)[range]))
        }
    }

    /// The next whole lines, at most `maxLines`, in a block of their own: the file's bytes were
    /// read into the block's memory and are not copied again (only a partial last line moves on
    /// to the next block). Each line comes with its number and byte range in the block, without
    /// its `\n` or `\r\n`, or with a nil range when it is longer than ``maxLineBytes``; nil at
    /// the end of the input.
    func nextLines(max maxLines: Int) throws(AuditError) -> (block: LineBlock, lines: [(number: Int, range: Range<Int>?)])? {
        var lines: [(number: Int, range: Range<Int>?)] = []
        while lines.count < maxLines, let found = try nextLine(refill: lines.isEmpty) {
            switch found {
            case .line(let range): lines.append((lineNumber, range))
            case .tooLong: lines.append((lineNumber, nil))
            }
        }
        guard !lines.isEmpty else { return nil }
        // The block goes with its lines; what follows the last line starts a new block.
        let full = block
        block = LineBlock(path: path, capacity: full.memory.count)
        let remaining = end - start
        if remaining > 0 { _ = memcpy(block.memory.baseAddress!, full.memory.baseAddress! + start, remaining) }
        blockOffset += start
        searched -= start
        start = 0
        end = remaining
        return (full, lines)
    }

    /// The range of the next line in the block, or that it is too long; nil at the end, or, when
    /// `refill` is false, when the block holds no further whole line. The block is refilled (and
    /// a long line's bytes dropped) only when `refill` is true: no line of the block was handed
    /// out then.
    private func nextLine(refill: Bool = true) throws(AuditError) -> Found? {
        while true {
            let base = block.memory.baseAddress!
            let from = max(start, searched)
            if from < end, let hit = memchr(base + from, 0x0A, end - from) {
                let newline = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                defer { start = newline + 1 }
                lineNumber += 1
                return newline - start > maxLineBytes ? .tooLong : .line(lineRange(start, newline))
            }
            if finished {
                guard start < end else { return nil }
                defer { start = end }
                lineNumber += 1
                return end - start > maxLineBytes ? .tooLong : .line(lineRange(start, end))
            }
            searched = end
            guard refill else { return nil }
            if end - start > maxLineBytes {
                try skipToNextLine()
                lineNumber += 1
                return .tooLong
            }
            try fill()
        }
    }

    /// Drops the current line's bytes, reading on to its newline (or the end of the input)
    /// without keeping what is read.
    private func skipToNextLine() throws(AuditError) {
        while true {
            let base = block.memory.baseAddress!
            if start < end, let hit = memchr(base + start, 0x0A, end - start) {
                start = base.distance(to: hit.assumingMemoryBound(to: UInt8.self)) + 1
                return
            }
            blockOffset += end
            start = 0
            end = 0
            searched = 0
            if finished { return }
            try readMore()
        }
    }

    /// A line's bytes without a trailing `\r`.
    private func lineRange(_ lineStart: Int, _ lineEnd: Int) -> Range<Int> {
        lineEnd > lineStart && block.memory[lineEnd - 1] == 0x0D ? lineStart..<lineEnd - 1 : lineStart..<lineEnd
    }

    /// Moves the partial line to the front (into a larger block, at most one byte longer than
    /// the longest line kept, for a line longer than the block) and reads more.
    private func fill() throws(AuditError) {
        let remaining = end - start
        if remaining == block.memory.count {
            let larger = LineBlock(path: path, capacity: min(block.memory.count * 2, maxLineBytes + 1))
            _ = memcpy(larger.memory.baseAddress!, block.memory.baseAddress! + start, remaining)
            block = larger
        } else if start > 0 {
            _ = memmove(block.memory.baseAddress!, block.memory.baseAddress! + start, remaining)
        }
        blockOffset += start
        searched -= start
        start = 0
        end = remaining
        try readMore()
    }

    /// Reads what fits after `end` into the block; at the end of the input, sets `finished`.
    private func readMore() throws(AuditError) {
        while true {
            let count = Glibc.read(descriptor, block.memory.baseAddress! + end, block.memory.count - end)
            if count < 0 {
                if errno == EINTR { continue }
                throw AuditError.cannotRead(path: path, reason: String(cString: strerror(errno)))
            }
            if count == 0 { finished = true } else { end += count }
            return
        }
    }
}
