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
            for line in lines { read.append((line.number, String(decoding: block.bytes(line.range), as: UTF8.self))) }
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
        while let text = try reader.next({ String(decoding: $0, as: UTF8.self) }) { read.append(text) }
        #expect(read == Self.lines)
        #expect(reader.lineNumber == Self.lines.count)
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
