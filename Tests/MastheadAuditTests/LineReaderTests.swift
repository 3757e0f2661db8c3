import Foundation
@testable import MastheadAudit
import Testing

/// The line reader hands out lines in blocks read straight from the file: every line must come
/// out whole, once, in order and with its number, whatever the block size.
struct LineReaderTests {
    /// Lines of varied lengths (empty, CRLF-ended, longer than the smallest block), no final newline.
    static let lines: [String] = (0..<200).map { index in
        switch index % 7 {
        case 0: ""
        case 3: String(repeating: "x", count: 40 + index)
        default: "line \(index) " + String(repeating: "ab", count: index % 13)
        }
    }

    static func file() throws -> String {
        let path = NSTemporaryDirectory() + "line-reader-\(UUID().uuidString).txt"
        let text = lines.enumerated().map { $0.offset % 5 == 2 ? $0.element + "\r" : $0.element }.joined(separator: "\n")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test(arguments: [8, 31, 64, 4096])
    func blocks_giveEveryLineOnce_inOrder_withNumbers(blockSize: Int) throws {
        let path = try Self.file()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let reader = try LineReader(path: path, chunkSize: blockSize)
        var read: [(number: Int, text: String)] = []
        var blocks: [LineBlock] = []
        while let (block, lines) = try reader.nextLines(max: 17) {
            #expect(lines.count <= 17)
            blocks.append(block)
            for line in lines { read.append((line.number, String(decoding: block.bytes(try #require(line.range)), as: UTF8.self))) }
        }
        // Blocks stay valid after the reader has moved on.
        #expect(read.map(\.text) == Self.lines)
        #expect(read.map(\.number) == Array(1...Self.lines.count))
        #expect(reader.bytesConsumed == (try Data(contentsOf: URL(fileURLWithPath: path))).count)
        #expect(blocks.count >= Self.lines.count / 17)
    }

    @Test func linesOneByOne_matchTheBlocks() throws {
        let path = try Self.file()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let reader = try LineReader(path: path, chunkSize: 16)
        var read: [String] = []
        while let text = try reader.next({ $0.map { String(decoding: $0, as: UTF8.self) } ?? "(over the limit)" }) { read.append(text) }
        #expect(read == Self.lines)
        #expect(reader.lineNumber == Self.lines.count)
    }

    /// A line longer than the limit comes out numbered but without its bytes, which were never
    /// held: no block grows past the limit (plus its newline), and the lines after it are whole.
    @Test(arguments: [16, 64, 4096])
    func lineOverTheLimit_isSkippedUnheld_andTheNextLinesAreWhole(blockSize: Int) throws {
        let path = NSTemporaryDirectory() + "line-reader-\(UUID().uuidString).txt"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let text = "first\n" + String(repeating: "x", count: 100) + "\n" + String(repeating: "y", count: 50_000) + "\r\nlast line\n"
            + String(repeating: "z", count: 101)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let reader = try LineReader(path: path, chunkSize: blockSize, maxLineBytes: 100)
        var read: [(number: Int, text: String?)] = []
        while let (block, lines) = try reader.nextLines(max: 3) {
            #expect(block.memory.count <= max(blockSize, 101))
            for line in lines { read.append((line.number, line.range.map { String(decoding: block.bytes($0), as: UTF8.self) })) }
        }
        #expect(read.map(\.number) == [1, 2, 3, 4, 5])
        #expect(read.map(\.text) == ["first", String(repeating: "x", count: 100), nil, "last line", nil])
        #expect(reader.bytesConsumed == text.utf8.count)
    }

    /// Input without any newline (a runaway stream) is one line over the limit, read to its end in
    /// bounded memory.
    @Test func streamWithoutNewline_isOneLineOverTheLimit() throws {
        let path = NSTemporaryDirectory() + "line-reader-\(UUID().uuidString).txt"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(count: 3 << 20).write(to: URL(fileURLWithPath: path))
        let reader = try LineReader(path: path, chunkSize: 4096, maxLineBytes: 8192)
        var lines: [Int] = []
        while let found = try reader.next({ bytes in bytes == nil }) {
            #expect(found, "the line's bytes were handed out")
            lines.append(reader.lineNumber)
        }
        #expect(lines == [1])
        #expect(reader.bytesConsumed == 3 << 20)
    }

    /// An audit batch takes at most so many lines, and stops taking blocks at a byte bound.
    @Test func auditBatches_areBoundedByLinesAndBytes() throws {
        let path = try Self.file()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let reader = try LineReader(path: path, chunkSize: 64)
        var numbers: [Int] = []
        while true {
            let batch = try AuditRecord.batch(from: reader, maxLines: 40, maxBytes: 200)
            if batch.isEmpty { break }
            #expect(batch.count <= 40)
            var blocks: [ObjectIdentifier] = []
            for record in batch {
                guard case .line(let block, let number, _) = record else { continue }
                numbers.append(number)
                if blocks.last != ObjectIdentifier(block) { blocks.append(ObjectIdentifier(block)) }
            }
            // 64-byte blocks (doubled for a longer line) stop being taken once 200 bytes are held.
            #expect(blocks.count <= 4)
        }
        #expect(numbers == Array(1...Self.lines.count))
    }
}
