public import Masthead
public import MastheadFormats
import MastheadJSON

/// A receipts JSON lines file read for storing its users, `masthead import`'s input: each
/// non-blank line as its user and decoded receipt or verified signed data, or with why it cannot
/// be used (the same reasons as the audit's). The file is read in blocks, never held whole.
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
    /// Verifies and reads signed lines; nil when no app is configured.
    private let signedData: SignedDataVerifier?

    /// Opens `path`; `-` reads standard input. Receipts are checked against `catalog` as the
    /// audit and the service check them; signed lines (`signedTransactions`, `signedRenewalInfos`)
    /// are verified and read by `signedData`, as the audit reads them. A line longer than
    /// `maxLineBytes` is rejected, its bytes skipped unread.
    public init(
        path: String, catalog: Catalog, signedData: SignedDataVerifier? = nil, maxLineBytes: Int = AuditConfiguration.defaultMaxLineBytes
    ) throws(AuditError) {
        self.path = path
        reader = try LineReader(path: path, maxLineBytes: maxLineBytes)
        decoder = ReceiptDecoder(catalog: catalog)
        self.signedData = signedData
    }

    /// The next lines: from at most `maxLines` lines of the file, the non-blank ones; empty at the end.
    /// - Throws: ``AuditError/signedDataWithoutApp(location:)`` at a signed line when no verifier
    ///   was given (none of the lines read by this call is answered), or
    ///   ``AuditError/cannotRead(path:reason:)``.
    public func next(maxLines: Int) throws(AuditError) -> [Line] {
        var lines: [Line] = []
        while lines.isEmpty, let (block, numbered) = try reader.nextLines(max: maxLines) {
            for line in numbered {
                guard let range = line.range else {
                    lines.append(.rejected(line: line.number, reason: Auditor.tooLongReason(limit: reader.maxLineBytes)))
                    continue
                }
                switch withExtendedLifetime(block, { read(block.bytes(range), number: line.number) }) {
                case .line(let read): lines.append(read)
                case .blank: break
                case .signedWithoutApp: throw AuditError.signedDataWithoutApp(location: "\(path):\(line.number)")
                }
            }
        }
        return lines
    }

    /// What reading one line gave.
    private enum Read {
        case line(Line)
        case blank
        /// Signed data, with no app configured to check it against.
        case signedWithoutApp
    }

    /// One line's user and receipt or signed data, with its grants, or why not.
    private func read(_ bytes: UnsafeBufferPointer<UInt8>, number: Int) -> Read {
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return .blank }
        let decoded: Result<UserReceipt?, FormatError>
        do {
            decoded = try JSONDocument.withUnsafeParsing(bytes) { root in
                Result { () throws(FormatError) -> UserReceipt? in
                    let userId = try ReceiptsLine.userId(root)
                    let grants = try ReceiptsLine.grants(root)
                    var user: UserReceipt
                    switch try ReceiptsLine.content(root) {
                    case .receipt(let value):
                        let receipt = try decoder.decode(value, path: ReceiptsLine.receiptPath)
                        user = UserReceipt(line: number, userId: userId, history: receipt.history, latestReceipt: value.member("latest_receipt")?.string)
                    case .signed(let transactions, let renewals):
                        guard let signedData else { return nil }
                        let history = try signedData.history(signedTransactions: transactions, signedRenewalInfos: renewals, path: "$")
                        user = UserReceipt(line: number, userId: userId, history: history, latestReceipt: nil)
                    case .none:
                        user = UserReceipt(line: number, userId: userId, history: PurchaseHistory(), latestReceipt: nil)
                    }
                    if !grants.isEmpty { user.history.merge(grants: grants) }
                    return user
                }
            }
        } catch {
            return .line(.rejected(line: number, reason: error.description))
        }
        switch decoded {
        case .success(let user?): return .line(.user(user))
        case .success(nil): return .signedWithoutApp
        case .failure(let error): return .line(.rejected(line: number, reason: error.description))
        }
    }
}
