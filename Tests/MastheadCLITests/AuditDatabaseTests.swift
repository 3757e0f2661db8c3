import Foundation
import Masthead
import MastheadFormats
import MastheadSQLite
import MastheadStorage
import Testing

/// `masthead audit --database`: the service's own database as input, read-only, in one snapshot.
struct AuditDatabaseTests {
    static let users = [("alice", "table-6-1"), ("carol", "table-6-2"), ("frank", "single-issue"), ("gina", "refund")]

    /// A database holding the users' receipts, as the service stores them.
    static func database(in folder: URL, users: [(String, String)] = users) throws -> String {
        let path = folder.appendingPathComponent("masthead.sqlite").path
        let store = try SQLiteStore(path: path)
        try store.database.inTransaction {
            for (user, receipt) in users { try Self.store(user, receipt, into: store) }
        }
        return path
    }

    static func store(_ user: String, _ receipt: String, into store: SQLiteStore) throws {
        let catalog = try CatalogDecoder().decode(
            Array(try Data(contentsOf: Tool.root.appendingPathComponent("Catalog/the-monthly/catalog.json"))), file: "catalog.json")
        let bytes = Array(try Data(contentsOf: Tool.root.appendingPathComponent("Catalog/the-monthly/receipts/\(receipt).json")))
        let history = try ReceiptDecoder(catalog: catalog).decode(bytes).history
        try store.save(transactions: history.transactions, renewals: history.renewals)
        _ = try store.link(userId: user, transactions: history.transactions, latestReceipt: nil, restore: .transfer, now: Instant(milliseconds: 0))
    }

    static func audit(_ source: [String], at: String = "2020-07-02T00:00:00Z") throws -> Tool.Outcome {
        try Tool.run(["audit", "--catalog", "Catalog/the-monthly", "--at", at] + source)
    }

    /// The same users give the same lines from the database as from their receipts (in user id order).
    @Test func database_equalsReceipts() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try Self.database(in: folder)
        let receipts = folder.appendingPathComponent("in.jsonl")
        try Data(try Self.users.map { try AuditCommandTests.receiptLine($0.0, $0.1) }.joined(separator: "\n").utf8).write(to: receipts)
        for at in ["2020-03-31T23:59:59Z", "2020-07-02T00:00:00Z"] {
            let fromDatabase = try Self.audit(["--database", path], at: at)
            let fromReceipts = try Self.audit(["--receipts", receipts.path], at: at)
            #expect(fromDatabase.status == 0, "\(fromDatabase.errors)")
            #expect(fromDatabase.output.split(separator: "\n").count == 4)
            #expect(fromDatabase.output == fromReceipts.output)
            #expect(Tool.summaryRow(fromDatabase.errors, "users") == ["4"])
        }
    }

    /// --shard K/N on the database: every user in exactly one part, the others counted.
    @Test func database_shards_coverEveryUserOnce() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try Self.database(in: folder)
        let whole = try Self.audit(["--database", path])
        let parts = try (1...2).map { try Self.audit(["--database", path, "--shard", "\($0)/2"]) }
        #expect(parts.map(\.status) == [0, 0])
        #expect(parts.allSatisfy { !$0.output.isEmpty })
        #expect(parts.flatMap { $0.output.split(separator: "\n") }.sorted() == whole.output.split(separator: "\n").sorted())
        for part in parts {
            let users = Int(Tool.summaryRow(part.errors, "users")?.first ?? "") ?? -1
            #expect(Tool.summaryRow(part.errors, "lines of other shards") == ["\(4 - users)"])
        }
    }

    /// While the service holds a write transaction open, the audit reads the last committed state,
    /// waits for nothing, and writes nothing to the database.
    @Test func runningService_isNotDisturbed_andUncommittedWritesAreUnseen() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try Self.database(in: folder, users: [("alice", "table-6-1")])
        let service = try SQLiteStore(path: path)
        try service.database.execute("BEGIN IMMEDIATE")
        try Self.store("carol", "table-6-2", into: service)
        let before = try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date
        let during = try Self.audit(["--database", path])
        #expect(during.status == 0, "\(during.errors)")
        #expect(during.output.split(separator: "\n").map { $0.split(separator: "\"")[3] } == ["alice"])
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date == before)
        try service.database.execute("COMMIT")
        let after = try Self.audit(["--database", path])
        #expect(after.output.split(separator: "\n").map { $0.split(separator: "\"")[3] } == ["alice", "carol"])
    }

    /// Issues published through the service count in the audit as they do in the service.
    @Test func issuesPublishedThroughService_count() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try Self.database(in: folder, users: [("alice", "table-6-1")])
        let service = try SQLiteStore(path: path)
        try service.upsertIssue(publicationId: "the-monthly", issue: Issue(id: "2020-06-extra", published: Instant(milliseconds: 1_592_611_200_000)))
        let run = try Self.audit(["--database", path])
        #expect(run.output.contains(#""readable":["2020-02","2020-03","2020-04","2020-06","2020-06-extra","2020-07"]"#))
    }

    @Test func missingDatabase_exits66_andCreatesNothing() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("nothing.sqlite").path
        let run = try Self.audit(["--database", path])
        #expect(run.status == 66)
        #expect(run.errors.hasPrefix("masthead: cannot read \(path)"))
        #expect(!FileManager.default.fileExists(atPath: path))
    }
}
