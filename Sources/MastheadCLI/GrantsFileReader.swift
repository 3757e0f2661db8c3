import Glibc
import MastheadFormats

/// Reads a grants file (or standard input) record by record, without holding it whole: a record
/// is a line, or for CSV the lines a quoted field spans. A record longer than
/// ``maxRecordBytes`` is not kept (its bytes are read and dropped), so memory stays bounded
/// whatever the input.
final class GrantsFileReader {
    /// One record: its first line's number and its bytes (without the line break), or nil when
    /// it was longer than ``maxRecordBytes``.
    struct Record {
        var line: Int
        var bytes: [UInt8]?
    }

    /// The longest record kept, in bytes.
    static let maxRecordBytes = 1 << 20

    let path: String
    /// The file's format, from its first bytes (``GrantsFileDecoder/Format/init(firstBytes:)``).
    private(set) var format = GrantsFileDecoder.Format.csv
    /// The size of the input when it is a regular file; nil for standard input and pipes.
    let size: Int?
    /// Bytes consumed so far.
    private(set) var bytesRead = 0
    /// Lines read so far.
    var linesRead: Int { lineNumber }
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    private var start = 0
    private var finished = false
    private var lineNumber = 0

    /// Opens `path` (`-` reads standard input) and reads enough of it to tell its format; a UTF-8
    /// byte order mark at its start is skipped.
    init(path: String) throws(CLIError) {
        self.path = path
        var info = stat()
        size = path != "-" && stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG ? Int(info.st_size) : nil
        descriptor = path == "-" ? 0 : open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw CLIError.cannotRead(path: path, reason: String(cString: strerror(errno))) }
        while !finished && buffer.count <= Self.maxRecordBytes && !buffer.contains(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) { try fill() }
        // A byte order mark (spreadsheets write one before CSV) is not part of the first record.
        if buffer.starts(with: [0xEF, 0xBB, 0xBF]) { consume(upTo: 3) }
        format = GrantsFileDecoder.Format(firstBytes: buffer[start...])
    }

    deinit { if descriptor > 0 { close(descriptor) } }

    /// The next record that is not blank; nil at the end of the input.
    func next() throws(CLIError) -> Record? {
        while true {
            guard let first = try nextLine() else { return nil }
            var record = first.bytes
            // A CSV record goes on while a quoted field is open.
            while format == .csv, let bytes = record, !GrantsFileDecoder.csvRecordIsComplete(bytes), let more = try nextLine() {
                record = more.bytes.flatMap { bytes.count + 1 + $0.count <= Self.maxRecordBytes ? bytes + [0x0A] + $0 : nil }
            }
            if let bytes = record, bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
            return Record(line: first.line, bytes: record)
        }
    }

    /// The next line without its `\n` (and a `\r` before it), or nil bytes when longer than the
    /// limit; nil at the end.
    private func nextLine() throws(CLIError) -> (line: Int, bytes: [UInt8]?)? {
        // Bytes after `start` known to hold no newline, and whether the line was too long to keep.
        var searched = 0
        var tooLong = false
        while true {
            if let newline = newline(from: start + searched) {
                lineNumber += 1
                let bytes = tooLong || newline - start > Self.maxRecordBytes ? nil : line(start..<newline)
                consume(upTo: newline + 1)
                return (lineNumber, bytes)
            }
            if finished {
                guard start < buffer.count || tooLong else { return nil }
                lineNumber += 1
                let bytes = tooLong || buffer.count - start > Self.maxRecordBytes ? nil : line(start..<buffer.count)
                consume(upTo: buffer.count)
                return (lineNumber, bytes)
            }
            if buffer.count - start > Self.maxRecordBytes {
                tooLong = true
                consume(upTo: buffer.count)
            }
            searched = buffer.count - start
            try fill()
        }
    }

    /// The index of the first `\n` at or after `offset`, if the buffer holds one.
    private func newline(from offset: Int) -> Int? {
        guard offset < buffer.count else { return nil }
        return buffer.withUnsafeBufferPointer { bytes -> Int? in
            guard let hit = memchr(bytes.baseAddress! + offset, 0x0A, bytes.count - offset) else { return nil }
            return bytes.baseAddress!.distance(to: hit.assumingMemoryBound(to: UInt8.self))
        }
    }

    private func line(_ range: Range<Int>) -> [UInt8] {
        var bytes = Array(buffer[range])
        if bytes.last == 0x0D { bytes.removeLast() }
        return bytes
    }

    private func consume(upTo end: Int) {
        bytesRead += end - start
        start = end
    }

    /// Reads more of the input after what is kept, dropping what was consumed.
    private func fill() throws(CLIError) {
        if start > 0 {
            buffer.removeFirst(start)
            start = 0
        }
        let chunk = 1 << 20
        let before = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: chunk))
        var count = 0
        repeat {
            count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + before, chunk) }
        } while count < 0 && errno == EINTR
        guard count >= 0 else { throw CLIError.cannotRead(path: path, reason: String(cString: strerror(errno))) }
        buffer.removeLast(chunk - count)
        if count == 0 { finished = true }
    }
}
