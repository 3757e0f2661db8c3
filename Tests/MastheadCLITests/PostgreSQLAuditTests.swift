import Foundation
import Masthead
import MastheadAudit
import MastheadFormats
import MastheadPostgreSQL
import MastheadStorage
import MastheadTestSupport
import Testing

/// `masthead audit --database postgresql://…`: one `REPEATABLE READ READ ONLY` snapshot, users
/// streamed through a server-side cursor.
@Suite(.enabled(if: !TestPostgreSQL.isSkipped, "MASTHEAD_SKIP_POSTGRES=1"))
struct PostgreSQLAuditTests {
    /// More users than one batch of the audit (4,096), so that the cursor is fetched from several times.
    static let users = 5_000

    /// A generated population imported into a new PostgreSQL database: its URL and the receipts file.
    static func importedPopulation(in folder: URL, also sqlite: String? = nil) throws -> String {
        let population = try Tool.run(["generate", "--catalog", "Catalog/the-monthly", "--users", "\(users)", "--seed", "14"])
        let receipts = folder.appendingPathComponent("population.jsonl").path
        try Data(population.output.utf8).write(to: URL(fileURLWithPath: receipts))
        let url = try TestPostgreSQL.freshDatabase()
        for database in [url] + (sqlite.map { [$0] } ?? []) {
            let imported = try Tool.run(["import", "--catalog", "Catalog/the-monthly", "--receipts", receipts, "--database", database])
            #expect(imported.status == 0, "\(imported.errors)")
        }
        return url
    }

    @Test func audit_ofPostgreSQL_equalsTheAuditOfTheSameDataInSQLite_byteForByte() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let sqlite = folder.appendingPathComponent("masthead.sqlite").path
        let url = try Self.importedPopulation(in: folder, also: sqlite)
        for format in ["jsonl", "csv"] {
            let arguments = ["audit", "--catalog", "Catalog/the-monthly", "--at", "2020-03-31T23:59:59Z", "--at", "2020-07-02T00:00:00Z", "--format", format]
            let fromPostgreSQL = try Tool.run(arguments + ["--database", url])
            let fromSQLite = try Tool.run(arguments + ["--database", sqlite])
            #expect(fromPostgreSQL.status == 0, "\(fromPostgreSQL.errors)")
            #expect(!fromPostgreSQL.output.isEmpty)
            #expect(fromPostgreSQL.output == fromSQLite.output)
            #expect(fromPostgreSQL.errors == fromSQLite.errors)
            #expect(Tool.summaryRow(fromPostgreSQL.errors, "users") == ["\(Self.users)"])
        }
    }

    /// A database that cannot be reached is named without its password, and the exit status says the input cannot be read.
    @Test func audit_ofAnUnreachableDatabase_namesItWithoutItsPassword() throws {
        let outcome = try Tool.run(["audit", "--catalog", "Catalog/the-monthly", "--database", "postgresql://ana:s3cret@%2Fnonexistent:5999/x", "--at", "2020-07-02T00:00:00Z"])
        #expect(outcome.status == 66)
        #expect(outcome.errors.contains("cannot read postgresql://ana@%2Fnonexistent:5999/x: cannot use PostgreSQL"), "\(outcome.errors)")
        #expect(!outcome.errors.contains("s3cret"))
    }

    /// A sink that commits a write to the database when it gets the audit's first output.
    final class WritingSink: AuditSink {
        var output: [UInt8] = []
        var writeOnce: (() throws -> Void)?
        var showsProgress: Bool { false }

        func write(_ bytes: [UInt8]) throws {
            output += bytes
            if let write = writeOnce {
                writeOnce = nil
                try write()
            }
        }

        func reject(_ message: String) throws {}
        func progress(_ position: AuditPosition) throws {}
    }

    /// A user linked and every stored subscription refunded while the audit runs (after its first
    /// output, before its last users are fetched): the audit's output is the one of the database
    /// before the write.
    @Test func audit_ofPostgreSQL_doesNotSeeAWriteCommittedWhileItRuns() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = try Self.importedPopulation(in: folder)
        let catalog = try CatalogDecoder().decode(
            Array(try Data(contentsOf: Tool.root.appendingPathComponent("Catalog/the-monthly/catalog.json"))), file: "catalog.json")
        let configuration = AuditConfiguration(catalog: catalog, source: .database(path: url), instants: [DateText.rfc3339("2020-07-02T00:00:00Z")!])
        let before = WritingSink()
        let summaryBefore = try Audit(configuration).run(into: before).summary
        let during = WritingSink()
        during.writeOnce = {
            let store = try PostgreSQLStore(url: url)
            let late = Transaction(transactionId: "late", productId: "com.example.monthly", purchase: Instant(milliseconds: 1_592_395_200_000), expires: Instant(milliseconds: 1_594_987_200_000))
            try store.inTransaction { () throws(StorageError) in
                try store.save(transactions: [late], renewals: [])
                _ = try store.link(userId: "~late", transactions: [late], latestReceipt: nil, restore: .transfer, now: Instant(milliseconds: 0))
            }
            try store.connection.run("UPDATE transactions SET cancellation_ms = purchase_ms", [])
        }
        let summaryDuring = try Audit(configuration).run(into: during).summary
        #expect(during.writeOnce == nil, "the sink got no output")
        #expect(!during.output.isEmpty)
        #expect(during.output == before.output)
        #expect(summaryDuring.users == summaryBefore.users && summaryDuring.outputLines == summaryBefore.outputLines)
        // The write is there for the next audit.
        let after = WritingSink()
        _ = try Audit(configuration).run(into: after)
        #expect(String(decoding: after.output, as: UTF8.self).contains("~late"))
        #expect(after.output != before.output)
    }
}
