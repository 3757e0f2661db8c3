import Foundation
import Masthead
import MastheadAudit
import MastheadFormats
import MastheadSQLite
import MastheadStorage

/// Inputs for audits run in-process: the shipped catalog and receipts, files in a temporary
/// folder, a database filled as the service fills it.
struct AuditFixture {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let catalog: Catalog = {
        let file = root.appendingPathComponent("Catalog/the-monthly/catalog.json")
        return try! CatalogDecoder().decode(Array(try! Data(contentsOf: file)), file: file.path)
    }()

    /// A shipped receipt (`Catalog/the-monthly/receipts/NAME.json`) on one line.
    static func receipt(_ name: String) throws -> String {
        let text = try String(contentsOf: root.appendingPathComponent("Catalog/the-monthly/receipts/\(name).json"), encoding: .utf8)
        return text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined()
    }

    /// A receipts line for `user` holding a shipped receipt.
    static func line(_ user: String, _ name: String) throws -> String { #"{"user_id": "\#(user)", "receipt": \#(try receipt(name))}"# }

    static func instant(_ text: String) -> Instant { DateText.rfc3339(text)! }

    /// A fresh temporary folder, removed by ``remove()``.
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("masthead-audit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    func remove() { try? FileManager.default.removeItem(at: folder) }

    /// Writes `lines` (joined by line breaks) to a file of the folder; returns its path.
    func file(_ name: String, _ lines: [String]) throws -> String {
        let url = folder.appendingPathComponent(name)
        try Data(lines.joined(separator: "\n").utf8).write(to: url)
        return url.path
    }

    /// A database holding each user's shipped receipt, stored and linked as the service does.
    func database(_ users: [(id: String, receipt: String)]) throws -> String {
        let path = folder.appendingPathComponent("masthead.sqlite").path
        let store = try SQLiteStore(path: path)
        try store.database.inTransaction {
            for (user, name) in users {
                let history = try ReceiptDecoder(catalog: Self.catalog).decode(Array(try Self.receipt(name).utf8)).history
                try store.save(transactions: history.transactions, renewals: history.renewals)
                _ = try store.link(userId: user, transactions: history.transactions, latestReceipt: nil, restore: .transfer, now: Instant(milliseconds: 0))
            }
        }
        return path
    }

    /// Runs an audit in-process into a ``CollectingSink``.
    static func run(_ configuration: AuditConfiguration, progress: Bool = false) throws -> (result: AuditResult, sink: CollectingSink) {
        let sink = CollectingSink(showsProgress: progress)
        let result = try Audit(configuration).run(into: sink)
        return (result, sink)
    }
}
