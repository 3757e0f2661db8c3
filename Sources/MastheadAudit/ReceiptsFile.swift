public import Masthead
import MastheadFormats
import MastheadJSON

/// A receipts JSON lines file read for storing its users, `masthead import`'s input: each
/// non-blank line as its user and decoded receipt, or with why it cannot be used (the same
/// reasons as the audit's). The file is read in blocks, never held whole.
public final class ReceiptsFile {
    /// One non-blank line.
    public enum Line: Sendable {
        case user(UserReceipt)
        /// Line `line` cannot be used, for `reason`.
        case rejected(line: Int, reason: String)
    }

    /// The file, as named (`-` is standard input).
    public let path: String
    private let reader: LineReader
    private let decoder: ReceiptDecoder

    /// Opens `path`; `-` reads standard input. Receipts are checked against `catalog` as the
    /// audit and the service check them.
    public init(path: String, catalog: Catalog) throws(AuditError) {
        self.path = path
        reader = try LineReader(path: path)
        decoder = ReceiptDecoder(catalog: catalog)
    }

    /// The next lines: from at most `maxLines` lines of the file, the non-blank ones; empty at the end.
    public func next(maxLines: Int) throws(AuditError) -> [Line] {
        var lines: [Line] = []
        while lines.isEmpty, let (block, numbered) = try reader.nextLines(max: maxLines) {
            for line in numbered {
                if let read = withExtendedLifetime(block, { read(block.bytes(line.range), number: line.number) }) { lines.append(read) }
            }
        }
        return lines
    }

    /// One line's user and receipt, or why not; nil for a blank line.
    private func read(_ bytes: UnsafeBufferPointer<UInt8>, number: Int) -> Line? {
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return nil }
        let decoded: Result<UserReceipt, FormatError>
        do {
            decoded = try JSONDocument.withUnsafeParsing(bytes) { root in
                Result { () throws(FormatError) -> UserReceipt in
                    let userId = try ReceiptsLine.userId(root)
                    let value = try ReceiptsLine.receipt(root)
                    let receipt = try decoder.decode(value, path: ReceiptsLine.receiptPath)
                    return UserReceipt(line: number, userId: userId, receipt: receipt, latestReceipt: value.member("latest_receipt")?.string)
                }
            }
        } catch {
            return .rejected(line: number, reason: error.description)
        }
        switch decoded {
        case .success(let user): return .user(user)
        case .failure(let error): return .rejected(line: number, reason: error.description)
        }
    }
}
