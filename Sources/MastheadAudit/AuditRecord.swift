import Masthead

/// One user to audit: a receipts line, or a history read from the database.
enum AuditRecord {
    /// Line `number` of a file: `range` of the bytes of `block`.
    case line(block: LineBlock, number: Int, range: Range<Int>)
    /// Line `number` of the file `path`, longer than `limit` bytes: its bytes were skipped.
    case tooLong(path: String, number: Int, limit: Int)
    case user(id: String, history: PurchaseHistory)

    /// The next receipts lines: at most `maxLines`, and no further block once the batch holds
    /// `maxBytes` of them, so long lines make smaller batches rather than more memory.
    static func batch(from reader: LineReader, maxLines: Int, maxBytes: Int) throws(AuditError) -> [AuditRecord] {
        var batch: [AuditRecord] = []
        batch.reserveCapacity(maxLines)
        var bytes = 0
        while batch.count < maxLines, bytes < maxBytes, let (block, lines) = try reader.nextLines(max: maxLines - batch.count) {
            bytes += block.memory.count
            for line in lines {
                if let range = line.range {
                    batch.append(.line(block: block, number: line.number, range: range))
                } else {
                    batch.append(.tooLong(path: block.path, number: line.number, limit: reader.maxLineBytes))
                }
            }
        }
        return batch
    }

    /// Where a rejected record came from, for the message: `FILE:LINE` or the user id.
    var location: String {
        switch self {
        case .line(let block, let number, _): "\(block.path):\(number)"
        case .tooLong(let path, let number, _): "\(path):\(number)"
        case .user(let id, _): "user \(id)"
        }
    }
}
