import Foundation
import Glibc
import MastheadSQLite
import MastheadTestSupport
import Testing

/// `masthead import`: a receipts file stored in the service's database as the service stores
/// posted receipts, so that `audit --database` reads what `audit --receipts` reads.
struct ImportCommandTests {
    static func importing(_ receipts: String, into database: String, _ extra: [String] = []) throws -> Tool.Outcome {
        try Tool.run(["import", "--catalog", "Catalog/the-monthly", "--receipts", receipts, "--database", database] + extra)
    }

    static func audit(_ source: [String], at: String) throws -> Tool.Outcome {
        try Tool.run(["audit", "--catalog", "Catalog/the-monthly", "--at", at] + source)
    }

    /// A generated population imported, then audited from the database: the same lines as audited
    /// from the file (sorted: the database gives users in id order), at several instants.
    @Test func importedPopulation_auditsAsTheReceiptsFileDoes() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let receipts = folder.appendingPathComponent("users.jsonl").path
        let database = folder.appendingPathComponent("masthead.sqlite").path
        let generate = try Tool.run(["generate", "--catalog", "Catalog/the-monthly", "--users", "400", "--seed", "7", "--output", receipts])
        #expect(generate.status == 0, "\(generate.errors)")
        let imported = try Self.importing(receipts, into: database, ["--maxCommitBatch", "64"])
        #expect(imported.status == 0, "\(imported.errors)")
        #expect(imported.output == "import: 400 line(s) stored in \(database), 0 rejected\n")
        #expect(imported.errors.isEmpty)
        // The database is closed, and so checkpointed, when the import ends: no write-ahead log is left.
        let wal = try? FileManager.default.attributesOfItem(atPath: database + "-wal")
        #expect((wal?[.size] as? Int ?? 0) == 0)
        for at in ["2020-06-30T23:59:59Z", "2021-06-30T00:00:00Z"] {
            let fromDatabase = try Self.audit(["--database", database], at: at)
            let fromReceipts = try Self.audit(["--receipts", receipts], at: at)
            #expect(fromDatabase.status == 0, "\(fromDatabase.errors)")
            #expect(fromDatabase.output.split(separator: "\n").count > 300)
            #expect(fromDatabase.output.split(separator: "\n").sorted() == fromReceipts.output.split(separator: "\n").sorted())
            #expect(Tool.summaryRow(fromDatabase.errors, "users") == Tool.summaryRow(fromReceipts.errors, "users"))
        }
        // Importing again gives the same histories.
        #expect(try Self.importing(receipts, into: database).status == 0)
        let again = try Self.audit(["--database", database], at: "2021-06-30T00:00:00Z")
        #expect(again.output == (try Self.audit(["--database", database], at: "2021-06-30T00:00:00Z")).output)
    }

    /// Every row the database stores, each as JSON text, sorted by table and row: what an import
    /// stored, but for the instants it stored them at (users' `created_ms`, subscriptions'
    /// `linked_ms`, grants' `written_ms`), the migrations and the change log (its writer's id is random).
    static func storedRows(_ path: String) throws -> [String] {
        let database = try Database(path: path, readOnly: true)
        let tables = try database.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT IN ('migrations', 'changes') ORDER BY name")
            .rows([]) { row throws(SQLiteError) in try row.text(0) }
        var rows: [String] = []
        for table in tables {
            let columns = try database.prepare("SELECT name FROM pragma_table_info(?1) WHERE name NOT IN ('created_ms', 'linked_ms', 'written_ms')")
                .rows([.text(table)]) { row throws(SQLiteError) in try row.text(0) }
            // A blob (a stored history) as its hex: JSON holds no blob.
            let values = columns.map { "CASE WHEN typeof(\($0)) = 'blob' THEN hex(\($0)) ELSE \($0) END" }
            rows += try database.prepare("SELECT json_array(\(values.joined(separator: ", "))) FROM \(table)").rows([]) { row throws(SQLiteError) in
                "\(table) \(try row.text(0))"
            }
        }
        return rows.sorted()
    }

    /// An import stopped part-way (a signed line while no app is named stops it) keeps the batches
    /// it committed; run again on the whole file, it stores every reader once: the same rows as one
    /// run into a new database.
    @Test func importStoppedPartWay_thenRunAgain_storesTheRowsOfOneRun() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let generated = folder.appendingPathComponent("users.jsonl").path
        let generate = try Tool.run(["generate", "--catalog", "Catalog/the-monthly", "--users", "300", "--seed", "11", "--output", generated])
        #expect(generate.status == 0, "\(generate.errors)")
        let lines = try String(contentsOfFile: generated, encoding: .utf8).split(separator: "\n").map(String.init)
        let signed = SignedData.line("alice", transactions: try SignedData.table61().transactions)
        let receipts = try SignedData.write((lines[..<200] + [signed] + lines[200...]).joined(separator: "\n"), "in.jsonl", in: folder)
        let noApp = try SignedCheckTests.catalog(app: nil, in: folder)
        let batches = ["--maxCommitBatch", "64"] + SignedData.trustTestChain
        let database = folder.appendingPathComponent("stopped.sqlite").path
        let stopped = try Tool.run(["import", "--catalog", noApp, "--receipts", receipts, "--database", database] + batches)
        #expect(stopped.status == 64, "\(stopped.errors)")
        // The three batches before the signed line's were committed; nothing of the fourth.
        #expect(try Self.storedRows(database).filter { $0.hasPrefix("users ") }.count == 192)

        let named = batches + ["--bundle-id", "com.example.magazine"]
        let again = try Tool.run(["import", "--catalog", noApp, "--receipts", receipts, "--database", database] + named)
        #expect(again.status == 0, "\(again.errors)")
        #expect(again.output == "import: 301 line(s) stored in \(database), 0 rejected\n")
        let once = folder.appendingPathComponent("once.sqlite").path
        let run = try Tool.run(["import", "--catalog", noApp, "--receipts", receipts, "--database", once] + named)
        #expect(run.status == 0, "\(run.errors)")
        let rows = try Self.storedRows(database)
        #expect(rows.filter { $0.hasPrefix("users ") }.count == 301)
        #expect(rows.filter { $0.hasPrefix("transactions ") }.count > 3000)
        #expect(rows == (try Self.storedRows(once)))
    }

    /// Lines that cannot be used are reported as FILE:LINE, in order, and store nothing; the
    /// others are stored, and the exit status is 1.
    @Test func badLines_reportedWithFileAndLine_othersStored() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let receipts = folder.appendingPathComponent("in.jsonl")
        let database = folder.appendingPathComponent("masthead.sqlite").path
        let lines = [
            try AuditCommandTests.receiptLine("alice", "table-6-1"), "{not json", "", #"{"receipt": {"status": 0}}"#,
            #"{"user_id": "bob", "receipt": {"status": 21007}}"#, try AuditCommandTests.receiptLine("carol", "table-6-2"),
        ]
        try Data(lines.joined(separator: "\n").utf8).write(to: receipts)
        let run = try Self.importing(receipts.path, into: database)
        #expect(run.status == 1)
        #expect(run.output == "import: 2 line(s) stored in \(database), 3 rejected\n")
        let errors = run.errors.split(separator: "\n").map(String.init)
        #expect(errors.count == 3)
        #expect(errors[0].hasPrefix("\(receipts.path):2: invalid JSON: "))
        #expect(errors[1] == "\(receipts.path):4: missing field $.user_id (line 1)")
        #expect(errors[2].hasPrefix("\(receipts.path):5: receipt rejected: status 21007"))
        let audit = try Self.audit(["--database", database], at: "2020-07-02T00:00:00Z")
        #expect(audit.output.split(separator: "\n").map { $0.split(separator: "\"")[3] } == ["alice", "carol"])
    }

    /// The publisher's grants a line carries are stored with its purchases, or alone, so that
    /// the audit of the database gives what the audit of the file gives; a grant id another user
    /// already holds refuses that line whole (its purchases too), naming the grant.
    @Test func linesWithGrants_storedWithThePurchases_auditedAsTheFileIs() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let receipts = folder.appendingPathComponent("in.jsonl")
        let database = folder.appendingPathComponent("masthead.sqlite").path
        let bridge = #"{"grantId": "g-1", "source": "print", "publications": ["the-monthly"], "access": "archive", "start": "2020-04-15", "end": "2020-06-20"}"#
        let comp = #"{"grantId": "g-2", "source": "comp", "publications": ["the-monthly"], "access": "archive", "start": "2020-05-10"}"#
        let withReceipt = try AuditCommandTests.receiptLine("alice", "table-6-1").dropLast() + #", "grants": [\#(bridge)]}"#
        let lines = [String(withReceipt), #"{"user_id": "gina", "grants": [\#(comp)]}"#, try AuditCommandTests.receiptLine("carol", "table-6-2")]
        try Data(lines.joined(separator: "\n").utf8).write(to: receipts)
        let run = try Self.importing(receipts.path, into: database)
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output == "import: 3 line(s) stored in \(database), 0 rejected\n")
        let fromDatabase = try Self.audit(["--database", database], at: "2020-07-02T00:00:00Z")
        let fromReceipts = try Self.audit(["--receipts", receipts.path], at: "2020-07-02T00:00:00Z")
        #expect(fromDatabase.output.split(separator: "\n").sorted() == fromReceipts.output.split(separator: "\n").sorted())
        #expect(fromDatabase.output.contains(#"{"user_id":"alice","publication":"the-monthly","status":"active","readable":["2020-02","2020-03","2020-04","2020-05","2020-06","2020-07"]}"#))
        #expect(fromDatabase.output.contains(#""user_id":"gina""#))
        // g-1 is alice's: bob's line naming it stores nothing, not even bob's purchases.
        let taken = try AuditCommandTests.receiptLine("bob", "table-6-2").dropLast() + #", "grants": [\#(bridge)]}"#
        try Data(String(taken).utf8).write(to: receipts)
        let refused = try Self.importing(receipts.path, into: database)
        #expect(refused.status == 1)
        #expect(refused.output == "import: 0 line(s) stored in \(database), 1 rejected\n")
        #expect(refused.errors == "\(receipts.path):1: grant g-1 belongs to another user\n")
        let after = try Self.audit(["--database", database], at: "2020-07-02T00:00:00Z")
        #expect(after.output == fromDatabase.output)
    }

    /// The restore behaviour is the service's: by default a subscription moves to the user whose
    /// line comes later; with restore keep (a flag, or the service's configuration file) that
    /// line is refused, naming the subscription.
    @Test func sameSubscriptionForTwoUsers_followsTheRestoreBehaviour() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let receipts = folder.appendingPathComponent("in.jsonl")
        try Data([try AuditCommandTests.receiptLine("alice", "table-6-1"), try AuditCommandTests.receiptLine("bob", "table-6-1")]
            .joined(separator: "\n").utf8).write(to: receipts)
        func users(_ database: String) throws -> [Substring] {
            try Self.audit(["--database", database], at: "2020-07-02T00:00:00Z").output.split(separator: "\n").map { $0.split(separator: "\"")[3] }
        }
        let transferred = folder.appendingPathComponent("transfer.sqlite").path
        #expect(try Self.importing(receipts.path, into: transferred).status == 0)
        #expect(try users(transferred) == ["bob"])
        let config = folder.appendingPathComponent("config.json")
        try Data(#"{"restore": "keep"}"#.utf8).write(to: config)
        for (name, extra) in [("flag", ["--restore", "keep"]), ("config", ["--config", config.path])] {
            let kept = folder.appendingPathComponent("\(name).sqlite").path
            let run = try Self.importing(receipts.path, into: kept, extra)
            #expect(run.status == 1)
            #expect(run.errors == "\(receipts.path):2: subscription 1000001 (production) is already linked to another user\n")
            #expect(try users(kept) == ["alice"])
        }
    }

    /// An import beside a running service: the service answers from what was imported at once,
    /// including for a user it had cached.
    @Test func importBesideRunningService_isAnsweredByIt_atOnce() throws {
        let database = ServeCommandTests.temporaryDatabase()
        defer { ServeCommandTests.remove(database) }
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try ServerProcess(database: database)
        let client = try TestClient(port: server.port)
        let authorization = ["Authorization": "Bearer api-token"]
        let alice = Array(try String(contentsOf: Tool.root.appendingPathComponent("Catalog/the-monthly/receipts/table-6-1.json"), encoding: .utf8).utf8)
        #expect(client.request("POST", "/v1/users/alice/receipts", headers: authorization, body: alice)?.status == 200)
        func products() -> [String] {
            let body = client.request("GET", "/v1/users/alice/entitlements?at=2020-07-02T00:00:00Z", headers: authorization)?.body ?? ""
            return Set(body.components(separatedBy: #""productId":""#).dropFirst().map { String($0.prefix { $0 != "\"" }) }).sorted()
        }
        #expect(products() == ["com.example.monthly"])
        let receipts = folder.appendingPathComponent("in.jsonl")
        try Data(try AuditCommandTests.receiptLine("alice", "table-6-2").utf8).write(to: receipts)
        let run = try Self.importing(receipts.path, into: database)
        #expect(run.status == 0, "\(run.errors)")
        #expect(products() == ["com.example.monthly", "com.example.reader"])
        let stopped = server.stop(signal: SIGTERM)
        #expect(stopped.status == 0, "\(stopped.errors)")
    }

    /// A receipts file that cannot be read exits 66 before the database is created.
    @Test func missingReceipts_exits66_andCreatesNoDatabase() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = folder.appendingPathComponent("masthead.sqlite").path
        let run = try Self.importing(folder.appendingPathComponent("none.jsonl").path, into: database)
        #expect(run.status == 66)
        #expect(run.errors == "masthead: cannot read \(folder.appendingPathComponent("none.jsonl").path): No such file or directory\n")
        #expect(!FileManager.default.fileExists(atPath: database))
    }

    /// A database that cannot be created exits 73, as an unwritable output does.
    @Test func unwritableDatabase_exits73() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let receipts = folder.appendingPathComponent("in.jsonl")
        try Data(try AuditCommandTests.receiptLine("alice", "table-6-1").utf8).write(to: receipts)
        let database = folder.appendingPathComponent("missing-folder/masthead.sqlite").path
        let run = try Self.importing(receipts.path, into: database)
        #expect(run.status == 73)
        #expect(run.errors.hasPrefix("masthead: cannot write \(database): "))
        #expect(run.output.isEmpty)
    }
}
