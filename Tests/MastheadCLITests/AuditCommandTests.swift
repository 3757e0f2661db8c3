import Foundation
import MastheadJSON
import Testing

/// `masthead audit` end to end on a file with good and bad lines.
struct AuditCommandTests {
    static func receiptLine(_ user: String, _ name: String) throws -> String {
        let receipt = try String(contentsOf: Tool.root.appendingPathComponent("Catalog/the-monthly/receipts/\(name).json"), encoding: .utf8)
        let compact = receipt.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined()
        return #"{"user_id": "\#(user)", "receipt": \#(compact)}"#
    }

    @Test func audit_goodAndBadLines() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("receipts.jsonl")
        let lines = [
            try Self.receiptLine("alice", "table-6-1"),
            #"{"user_id": "bob", "receipt": {"status": 21007}}"#,
            "{not json",
            try Self.receiptLine("carol", "table-6-2"),
            "",
            #"{"user_id": "dave", "receipt": {"status": 0, "latest_receipt_info": [{"transaction_id": "9", "product_id": "com.other", "purchase_date_ms": "1"}]}}"#,
            #"{"receipt": {"status": 0}}"#,
            try Self.receiptLine("erin", "stacked-passes").replacingOccurrences(of: "\"Production\"", with: "\"Sandbox\""),
            try Self.receiptLine("frank", "single-issue"),
        ]
        try Data(lines.joined(separator: "\n").utf8).write(to: input)
        let output = folder.appendingPathComponent("out.jsonl")
        let outcome = try Tool.run([
            "audit", "--catalog", "Catalog/the-monthly", "--receipts", input.path, "--at", "2020-07-02T00:00:00Z", "--output", output.path,
        ])
        #expect(outcome.status == 1)
        let written = try String(contentsOf: output, encoding: .utf8)
        #expect(written == """
            {"user_id":"alice","publication":"the-monthly","status":"active","readable":["2020-02","2020-03","2020-04","2020-06","2020-07"]}
            {"user_id":"carol","publication":"the-monthly","status":"active","readable":["2020-02","2020-03","2020-04","2020-05","2020-06","2020-07"]}
            {"user_id":"frank","publication":"the-monthly","status":"none","readable":["2020-05"]}

            """)
        let errors = outcome.errors.split(separator: "\n").map(String.init)
        #expect(errors[0] == "\(input.path):2: receipt rejected: status 21007: environment mismatch: a sandbox (test) receipt was sent to the production environment")
        #expect(errors[1].hasPrefix("\(input.path):3: invalid JSON: "))
        #expect(errors[1].contains("line 1, column 2"))
        #expect(errors[2] == "\(input.path):7: missing field $.user_id (line 1)")
        #expect(Tool.summaryRow(outcome.errors, "lines read") == ["8"])
        #expect(Tool.summaryRow(outcome.errors, "users") == ["5"])
        #expect(Tool.summaryRow(outcome.errors, "rejected lines") == ["3"])
        #expect(Tool.summaryRow(outcome.errors, "unknown products") == ["1 transaction(s)"])
        #expect(Tool.summaryRow(outcome.errors, "active") == ["2"])
        #expect(Tool.summaryRow(outcome.errors, "none") == ["1"])
    }

    @Test func audit_sandboxEnvironment_andStandardOutput() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("receipts.jsonl")
        let line = try Self.receiptLine("erin", "stacked-passes").replacingOccurrences(of: "\"Production\"", with: "\"Sandbox\"")
        try Data((line + "\n").utf8).write(to: input)
        let outcome = try Tool.run([
            "audit", "--catalog", "Catalog/the-monthly", "--receipts", input.path, "--at", "2020-12-31T00:00:00Z", "--environment", "sandbox",
        ])
        #expect(outcome.status == 0)
        let root = try JSONDocument(parsing: outcome.output.trimmingCharacters(in: .newlines)).root
        #expect(root["status"]?.string == "expired")
        #expect(root["readable"]?.count == 8)
    }

    /// More lines than one batch: decided on every core, written in input order.
    @Test func audit_manyLines_keepInputOrder() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("many.jsonl")
        let stories = ["table-6-1", "table-6-2", "refund", "upgrade", "stacked-passes", "single-issue"]
        let templates = try stories.map { try Self.receiptLine("USER", $0) }
        var lines: [String] = []
        for index in 0..<9000 {
            lines.append(index % 997 == 0 ? "{broken" : templates[index % templates.count].replacingOccurrences(of: "\"USER\"", with: "\"u\(index)\""))
        }
        try Data(lines.joined(separator: "\n").utf8).write(to: input)
        let output = folder.appendingPathComponent("out.jsonl")
        let outcome = try Tool.run([
            "audit", "--catalog", "Catalog/the-monthly", "--receipts", input.path, "--at", "2020-07-02T00:00:00Z", "--output", output.path,
        ])
        #expect(outcome.status == 1)
        let written = try String(contentsOf: output, encoding: .utf8).split(separator: "\n")
        let users = written.map { line in line.split(separator: "\"")[3] }.map(String.init)
        let expected = (0..<9000).filter { $0 % 997 != 0 }.map { "u\($0)" }
        #expect(users == expected)
        let rejected = outcome.errors.split(separator: "\n").filter { $0.contains("invalid JSON") }.map { $0.split(separator: ":")[1] }
        #expect(rejected == (0..<9000).filter { $0 % 997 == 0 }.map { Substring("\($0 + 1)") })
        #expect(Tool.summaryRow(outcome.errors, "users") == ["\(expected.count)"])
    }

    /// A grant of an issue the catalog does not have is a discrepancy like any other: with
    /// --fail-on-discrepancy the audit exits 2 though every other grant matches.
    @Test func grantOfUnknownIssue_isADiscrepancy() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("receipts.jsonl")
        try Data(try Self.receiptLine("alice", "table-6-1").utf8).write(to: input)
        let grants = folder.appendingPathComponent("grants.csv")
        let served = ["2020-02", "2020-03", "2020-04", "2020-06", "2020-07"].map { "alice,the-monthly,\($0)\n" }.joined()
        try Data(served.utf8).write(to: grants)
        let arguments = [
            "audit", "--catalog", "Catalog/the-monthly", "--receipts", input.path, "--at", "2020-07-02T00:00:00Z", "--grants", grants.path,
            "--fail-on-discrepancy",
        ]
        let matching = try Tool.run(arguments)
        #expect(matching.status == 0, "\(matching.errors)")
        try Data((served + "alice,the-monthly,1999-01\n").utf8).write(to: grants)
        let unknown = try Tool.run(arguments)
        #expect(unknown.status == 2)
        #expect(unknown.errors.contains("grants.csv:6: publication the-monthly has no issue 1999-01\n"))
        #expect(Tool.summaryRow(unknown.errors, "unknown grants") == ["users 0, publications 0, issues 1"])
        #expect(unknown.output == matching.output)
    }

    /// A line longer than --max-line-bytes is reported with its number and skipped, like any
    /// unusable line (exit 1); the lines around it are audited.
    @Test func lineOverTheLimit_isReportedAndSkipped() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("receipts.jsonl")
        let alice = try Self.receiptLine("alice", "table-6-1")
        let frank = try Self.receiptLine("frank", "single-issue")
        let longest = max(alice.utf8.count, frank.utf8.count)
        let long = #"{"user_id": "mallory", "padding": ""# + String(repeating: "x", count: longest * 3) + #""}"#
        try Data([alice, long, frank].joined(separator: "\n").utf8).write(to: input)
        let limit = String(longest + 10)
        let run = try Tool.run([
            "audit", "--catalog", "Catalog/the-monthly", "--receipts", input.path, "--at", "2020-07-02T00:00:00Z", "--max-line-bytes", limit,
        ])
        #expect(run.status == 1)
        #expect(run.output.split(separator: "\n").map { String($0.prefix(19)) } == [#"{"user_id":"alice","#, #"{"user_id":"frank","#])
        #expect(run.errors.hasPrefix("\(input.path):2: the line is longer than \(limit) bytes (the line limit), skipped unread\n"))
        #expect(Tool.summaryRow(run.errors, "lines read") == ["3"])
        #expect(Tool.summaryRow(run.errors, "rejected lines") == ["1"])
        let outOfRange = try Tool.run(["audit", "--catalog", "Catalog/the-monthly", "--receipts", input.path, "--max-line-bytes", "0"])
        #expect(outOfRange.status == 64)
        #expect(outOfRange.errors.contains("--max-line-bytes must be a whole number from 1 to 1073741824, not '0'"))
    }

    /// A stream without any newline (like /dev/zero, here a few megabytes through a pipe) is one
    /// line over the limit: the audit ends cleanly (exit 1), the output is renamed into place and
    /// no temporary file is left.
    @Test func streamWithoutNewline_endsCleanly_leavingNoTemporaryFile() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("out.jsonl")
        let run = try Tool.run(
            ["audit", "--catalog", "Catalog/the-monthly", "--receipts", "-", "--max-line-bytes", "65536", "--output", output.path],
            input: Data(count: 5 << 20))
        #expect(run.status == 1)
        #expect(run.errors.hasPrefix("-:1: the line is longer than 65536 bytes (the line limit), skipped unread\n"))
        #expect(Tool.summaryRow(run.errors, "rejected lines") == ["1"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["out.jsonl"])
        #expect(try Data(contentsOf: output).isEmpty)
    }

    /// A grants line over the limit stops the audit before it starts, naming the line (exit 1).
    @Test func grantsLineOverTheLimit_stopsTheAudit() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let receipts = folder.appendingPathComponent("receipts.jsonl")
        try Data(try Self.receiptLine("alice", "table-6-1").utf8).write(to: receipts)
        let grants = folder.appendingPathComponent("grants.csv")
        try Data(("alice,the-monthly,2020-03\nalice,the-monthly," + String(repeating: "9", count: 200) + "\n").utf8).write(to: grants)
        let run = try Tool.run([
            "audit", "--catalog", "Catalog/the-monthly", "--receipts", receipts.path, "--grants", grants.path, "--max-line-bytes", "100",
        ])
        #expect(run.status == 1)
        #expect(run.errors.contains("\(grants.path):2: expected a line of at most 100 bytes, not a longer one"))
        #expect(run.output.isEmpty)
    }

    /// The report appears whole or not at all: a failed run leaves the previous file untouched
    /// and no temporary file behind.
    @Test func output_isWrittenAtomically() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("report.jsonl")
        try Data("previous report\n".utf8).write(to: output)
        // A folder opens but cannot be read: the run fails after the output was opened.
        let failed = try Tool.run(["audit", "--catalog", "Catalog/the-monthly", "--receipts", folder.path, "--output", output.path])
        #expect(failed.status == 66)
        #expect(try String(contentsOf: output, encoding: .utf8) == "previous report\n")
        let input = folder.appendingPathComponent("in.jsonl")
        try Data((try Self.receiptLine("zoe", "table-6-1") + "\n").utf8).write(to: input)
        let done = try Tool.run(["audit", "--catalog", "Catalog/the-monthly", "--receipts", input.path, "--at", "2020-07-02T00:00:00Z", "--output", output.path])
        #expect(done.status == 0)
        #expect(try String(contentsOf: output, encoding: .utf8).hasPrefix(#"{"user_id":"zoe""#))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["in.jsonl", "report.jsonl"])
    }

    /// The audit is a line filter: auditing shards of the input separately and concatenating the
    /// outputs in shard order gives the same bytes as one audit of the whole file.
    @Test func shardedAudit_equalsWholeAudit() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let population = try Tool.run(["generate", "--catalog", "Catalog/the-monthly", "--users", "2000", "--seed", "3"])
        let lines = population.output.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        let whole = folder.appendingPathComponent("whole.jsonl")
        try Data(population.output.utf8).write(to: whole)
        func audit(_ input: URL) throws -> String {
            let output = folder.appendingPathComponent(input.lastPathComponent + ".out")
            let run = try Tool.run(["audit", "--catalog", "Catalog/the-monthly", "--receipts", input.path, "--at", "2021-03-31T23:59:59Z", "--output", output.path])
            #expect(run.status == 0)
            return try String(contentsOf: output, encoding: .utf8)
        }
        var merged = ""
        let shards = 3
        for shard in 0..<shards {
            let part = folder.appendingPathComponent("part-\(shard).jsonl")
            let range = (shard * lines.count / shards)..<((shard + 1) * lines.count / shards)
            try Data((lines[range].joined(separator: "\n") + "\n").utf8).write(to: part)
            merged += try audit(part)
        }
        let expected = try audit(whole)
        #expect(!expected.isEmpty)
        #expect(merged == expected)
    }

    /// `--receipts -` reads the users from standard input through a pipe (as a shell or Spark's
    /// `RDD.pipe` feeds them): the results and the summary are those of the file, and a rejected
    /// line is named `-:LINE`.
    @Test func receiptsDash_readsStandardInputThroughAPipe_asTheFileIsRead() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let population = try Tool.run(["generate", "--catalog", "Catalog/the-monthly", "--users", "300", "--seed", "6"])
        let input = population.output + "{not json\n"
        let file = folder.appendingPathComponent("users.jsonl")
        try Data(input.utf8).write(to: file)
        let arguments = ["audit", "--catalog", "Catalog/the-monthly", "--at", "2021-03-31T23:59:59Z", "--receipts"]
        let fromFile = try Tool.run(arguments + [file.path])
        let fromPipe = try Tool.run(arguments + ["-"], input: Data(input.utf8))
        #expect(fromPipe.status == 1)
        #expect(!fromPipe.output.isEmpty)
        #expect(fromPipe.output == fromFile.output)
        #expect(fromPipe.errors.hasPrefix("-:301: invalid JSON"))
        #expect(fromPipe.errors == fromFile.errors.replacingOccurrences(of: file.path + ":", with: "-:"))
    }

    /// With grants, --shard K/N takes the users whose id hashes to part K from the receipts and
    /// the grants alike: the parts' outputs together are the whole audit's lines, their counts add
    /// up to its counts, and no part reports the other parts' grants as unknown.
    @Test func shards_takeTheirUsersFromReceiptsAndGrants_andAddUp() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let users = folder.appendingPathComponent("users.jsonl")
        let grants = folder.appendingPathComponent("grants.csv")
        let generated = try Tool.run([
            "generate", "--catalog", "Catalog/the-monthly", "--users", "900", "--seed", "4", "--output", users.path, "--grants", grants.path,
            "--grants-at", "2021-03-31T23:59:59Z", "--grants-at", "2021-06-30T23:59:59Z",
        ])
        #expect(generated.status == 0)
        func audit(_ extra: [String]) throws -> Tool.Outcome {
            try Tool.run([
                "audit", "--catalog", "Catalog/the-monthly", "--receipts", users.path, "--grants", grants.path,
                "--at", "2021-03-31T23:59:59Z", "--at", "2021-06-30T23:59:59Z",
            ] + extra)
        }
        let whole = try audit([])
        let parts = try (1...3).map { try audit(["--shard", "\($0)/3"]) }
        #expect(parts.map(\.status) == [0, 0, 0])
        #expect(parts.flatMap { $0.output.split(separator: "\n") }.sorted() == whole.output.split(separator: "\n").sorted())
        #expect(parts.allSatisfy { !$0.output.isEmpty && !$0.errors.contains("without a receipt line") })
        /// A summary row's numbers, added over the parts column by column.
        func sum(_ label: String) -> [Int] {
            parts.map { (Tool.summaryRow($0.errors, label) ?? []).map { Int($0) ?? -1 } }.reduce([]) { total, row in
                (0..<max(total.count, row.count)).map { (total.indices.contains($0) ? total[$0] : 0) + (row.indices.contains($0) ? row[$0] : 0) }
            }
        }
        for label in ["overGranted", "underGranted", "heldAfterEntitlementEnded", "active", "expired"] {
            let expected = (Tool.summaryRow(whole.errors, label) ?? []).map { Int($0) ?? -1 }
            #expect(sum(label) == expected, "\(label)")
        }
        #expect(sum("users") == [900])
        #expect(sum("lines read") == [900])
        let grantRows = try String(contentsOf: grants, encoding: .utf8).split(separator: "\n").count - 1
        #expect(sum("grants of other shards") == [2 * grantRows])
        #expect(Tool.summaryRow(parts[0].errors, "shard") == ["1/3"])
    }

    /// `--summary-json` writes the figures of the summary table as one JSON object under the
    /// documented names, also when a line was rejected (exit 1); `-` needs `--output`.
    @Test func summaryJSON_holdsTheTablesFigures_alsoWhenALineIsRejected() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let users = folder.appendingPathComponent("users.jsonl")
        let grants = folder.appendingPathComponent("grants.csv")
        let generated = try Tool.run([
            "generate", "--catalog", "Catalog/the-monthly", "--users", "300", "--seed", "5", "--output", users.path, "--grants", grants.path,
            "--grants-at", "2021-06-30T23:59:59Z",
        ])
        #expect(generated.status == 0)
        try Data((try String(contentsOf: users, encoding: .utf8) + "{not json\n").utf8).write(to: users)
        let summaryPath = folder.appendingPathComponent("summary.json")
        let audit = [
            "audit", "--catalog", "Catalog/the-monthly", "--receipts", users.path, "--grants", grants.path, "--at", "2021-03-31T23:59:59Z",
            "--at", "2021-06-30T23:59:59Z",
        ]
        let outcome = try Tool.run(audit + ["--output", folder.appendingPathComponent("out.jsonl").path, "--summary-json", summaryPath.path])
        #expect(outcome.status == 1)
        let summary = try JSONDocument(parsing: [UInt8](try Data(contentsOf: summaryPath))).root
        func counts(_ value: JSONValue?) -> [String] {
            guard let value else { return ["missing"] }
            return value.kind == .array ? value.elements.map { $0.int64.map(String.init) ?? "?" } : [value.int64.map(String.init) ?? "?"]
        }
        #expect(summary["instants"]?.elements.map { $0.string ?? "?" } == ["2021-03-31T23:59:59Z", "2021-06-30T23:59:59Z"])
        #expect(counts(summary["linesRead"]) == Tool.summaryRow(outcome.errors, "lines read"))
        #expect(counts(summary["users"]) == Tool.summaryRow(outcome.errors, "users"))
        #expect(counts(summary["rejectedLines"]) == ["1"])
        #expect(counts(summary["unknownProductTransactions"]).map { "\($0) transaction(s)" } == Tool.summaryRow(outcome.errors, "unknown products"))
        #expect(counts(summary["userPublicationLines"]) == Tool.summaryRow(outcome.errors, "(user, publication)"))
        #expect(counts(summary["signedData"]?["users"]) == ["0"])
        #expect(summary["signedData"]?["signaturesVerified"]?.bool == true)
        #expect(summary["byStatus"]?.members.map { $0.key.string } == ["active", "gracePeriod", "billingRetry", "expired", "none"])
        for state in ["active", "gracePeriod", "billingRetry", "expired", "none"] {
            #expect(counts(summary["byStatus"]?[state]) == Tool.summaryRow(outcome.errors, state), "\(state)")
        }
        let products = Array(try #require(summary["byProduct"]).elements)
        #expect(products.count == 7)
        for product in products {
            let name = product["product"]?.string ?? "?"
            #expect(zip(counts(product["entitled"]), counts(product["lines"])).map { "\($0) / \($1)" } == Tool.summaryRow(outcome.errors, name), "\(name)")
        }
        #expect(summary["reconciled"]?.bool == true)
        let findings = Array(try #require(summary["findings"]).elements)
        #expect(findings.map { $0["kind"]?.string ?? "?" } == ["overGranted", "underGranted", "heldAfterEntitlementEnded"])
        for finding in findings {
            let kind = finding["kind"]?.string ?? "?"
            #expect(counts(finding["total"]) == Tool.summaryRow(outcome.errors, kind), "\(kind)")
            let perProduct = (finding["products"]?.elements).map { $0.map { counts($0["counts"]).map { Int($0) ?? -1 } } } ?? []
            let added = perProduct.reduce([0, 0]) { total, row in zip(total, row).map { $0 + $1 } }
            #expect(added.map(String.init) == counts(finding["total"]), "\(kind)")
        }
        #expect(counts(summary["findings"]?.elements.first { _ in true }?["total"]).contains { $0 != "0" })
        let grantsRow = ["users", "publications", "issues"].map { "\($0) \(counts(summary["unknownGrants"]?[$0])[0])" }.joined(separator: ", ")
        #expect([grantsRow] == Tool.summaryRow(outcome.errors, "unknown grants"))
        #expect(summary["shard"] == nil)

        let dash = try Tool.run(audit + ["--summary-json", "-"])
        #expect(dash.status == 64)
        #expect(dash.errors.contains("--summary-json - needs --output FILE"))
    }

    /// Audited by line ranges against the whole grants file, a part summarises the grants of the
    /// users it does not have in one line.
    @Test func grantsOfUsersWithoutReceiptLine_areSummarisedInOneLine() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let users = folder.appendingPathComponent("users.jsonl")
        let grants = folder.appendingPathComponent("grants.csv")
        _ = try Tool.run([
            "generate", "--catalog", "Catalog/the-monthly", "--users", "300", "--seed", "4", "--output", users.path, "--grants", grants.path,
            "--grants-at", "2021-06-30T23:59:59Z",
        ])
        let part = folder.appendingPathComponent("part.jsonl")
        try Data(try String(contentsOf: users, encoding: .utf8).split(separator: "\n").prefix(100).joined(separator: "\n").utf8).write(to: part)
        let run = try Tool.run([
            "audit", "--catalog", "Catalog/the-monthly", "--receipts", part.path, "--grants", grants.path, "--at", "2021-06-30T23:59:59Z",
            "--output", folder.appendingPathComponent("out.jsonl").path,
        ])
        #expect(run.status == 0)
        // The grants of users 100 to 299, by user.
        let others = try String(contentsOf: grants, encoding: .utf8).split(separator: "\n").dropFirst().map { String($0.split(separator: ",")[0]) }
            .filter { Int($0.dropFirst(5))! >= 100 }
        let mentions = run.errors.split(separator: "\n").filter { $0.contains("user") && $0.hasPrefix(grants.path) }
        #expect(mentions.count == 1)
        #expect(mentions.first?.hasPrefix("\(grants.path): \(others.count) grant(s) of \(Set(others).count) user(s) without a receipt line, not reconciled (first: line ") == true)
    }

    /// Reconciliation: each discrepancy kind, unknown grants, granted_at after the instant, exit 2.
    @Test func grants_reconciledWithReasons() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("in.jsonl")
        try Data([try Self.receiptLine("alice", "table-6-1"), try Self.receiptLine("bob", "single-issue")].joined(separator: "\n").utf8).write(to: input)
        let grants = folder.appendingPathComponent("grants.csv")
        try Data("""
            user_id,publication,issue_id,granted_at
            alice,the-monthly,2020-02,2020-02-20T12:00:00Z
            alice,the-monthly,2020-03,
            alice,the-monthly,2020-05,2020-05-02T00:00:00Z
            alice,the-monthly,2020-07,2020-08-01T00:00:00Z
            alice,the-monthly,1999-01
            alice,the-daily,2020-01
            carol,the-monthly,2020-01
            bob,the-monthly,2020-05

            """.utf8).write(to: grants)
        let run = try Tool.run([
            "audit", "--catalog", "Catalog/the-monthly", "--receipts", input.path, "--at", "2020-07-02T00:00:00Z", "--grants", grants.path,
            "--fail-on-discrepancy",
        ])
        #expect(run.status == 2)
        let lines = run.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 2)
        let alice = try JSONDocument(parsing: lines[0]).root
        // Served in a lapse: over-granted with the engine's reason.
        #expect(alice["overGranted"]?.elements.map { $0["issue"]!.string! } == ["2020-05"])
        #expect(alice["overGranted"]?.elements.first(where: { _ in true })?["reason"]?["kind"]?.string == "publishedDuringLapse")
        #expect(alice["overGranted"]?.elements.first(where: { _ in true })?["grantedAt"]?.string == "2020-05-02T00:00:00Z")
        #expect(alice["heldAfterEntitlementEnded"]?.count == 0)
        // Entitled, never served (July's grant comes after the audit instant and does not count).
        #expect(alice["underGranted"]?.elements.map { $0["issue"]!.string! } == ["2020-04", "2020-06", "2020-07"])
        #expect(alice["underGranted"]?.elements.first(where: { _ in true })?["reason"]?["kind"]?.string == "publishedDuringPeriod")
        let bob = try JSONDocument(parsing: lines[1]).root
        #expect(bob["overGranted"]?.count == 0)
        #expect(bob["underGranted"]?.count == 0)
        #expect(run.errors.contains("grants.csv:6: publication the-monthly has no issue 1999-01\n"))
        #expect(run.errors.contains("grants.csv:7: unknown publication the-daily\n"))
        #expect(run.errors.contains("grants.csv: 1 grant(s) of 1 user(s) without a receipt line, not reconciled (first: line 8, user carol)\n"))
        #expect(Tool.summaryRow(run.errors, "overGranted") == ["1"])
        #expect(Tool.summaryRow(run.errors, "underGranted") == ["3"])
        // Without --fail-on-discrepancy the same audit succeeds.
        let lenient = try Tool.run(["audit", "--catalog", "Catalog/the-monthly", "--receipts", input.path, "--at", "2020-07-02T00:00:00Z", "--grants", grants.path])
        #expect(lenient.status == 0)
        #expect(lenient.output == run.output)
    }

    @Test func grants_jsonLines_andBadLinesAreErrors() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("in.jsonl")
        try Data(try Self.receiptLine("dora", "single-issue").utf8).write(to: input)
        let grants = folder.appendingPathComponent("grants.jsonl")
        try Data(#"{"user_id": "dora", "publication": "the-monthly", "issue_id": "2020-06"}"#.utf8).write(to: grants)
        let run = try Tool.run(["audit", "--catalog", "Catalog/the-monthly", "--receipts", input.path, "--at", "2020-07-02T00:00:00Z", "--grants", grants.path])
        let dora = try JSONDocument(parsing: run.output.trimmingCharacters(in: .newlines)).root
        #expect(dora["overGranted"]?.elements.first(where: { _ in true })?["reason"]?["kind"]?.string == "notSubscribed")
        #expect(dora["underGranted"]?.elements.map { $0["issue"]!.string! } == ["2020-05"])
        try Data("dora,the-monthly\n".utf8).write(to: grants)
        let bad = try Tool.run(["audit", "--catalog", "Catalog/the-monthly", "--receipts", input.path, "--grants", grants.path])
        #expect(bad.status == 1)
        #expect(bad.errors.contains("grants.jsonl:1: expected user_id,publication,issue_id[,granted_at]"))
        #expect(bad.output == "")
    }

    /// Month-end series: one result per instant, in the order given; counts per instant.
    @Test func severalInstants_giveOneResultEach() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("in.jsonl")
        try Data(try Self.receiptLine("alice", "table-6-1").utf8).write(to: input)
        let run = try Tool.run([
            "audit", "--catalog", "Catalog/the-monthly", "--receipts", input.path,
            "--at", "2020-03-31T23:59:59Z", "--at", "2020-05-31T23:59:59Z", "--at", "2020-06-30T23:59:59Z",
        ])
        #expect(run.status == 0)
        #expect(run.output == #"{"user_id":"alice","publication":"the-monthly","asOf":[{"at":"2020-03-31T23:59:59Z","status":"active","readable":["2020-02","2020-03"]},{"at":"2020-05-31T23:59:59Z","status":"expired","readable":["2020-02","2020-03","2020-04"]},{"at":"2020-06-30T23:59:59Z","status":"active","readable":["2020-02","2020-03","2020-04","2020-06"]}]}"# + "\n")
        #expect(Tool.summaryRow(run.errors, "as of") == ["2020-03-31T23:59:59Z", "2020-05-31T23:59:59Z", "2020-06-30T23:59:59Z"])
        #expect(Tool.summaryRow(run.errors, "active") == ["1", "0", "1"])
        #expect(Tool.summaryRow(run.errors, "expired") == ["0", "1", "0"])
    }

    /// The audit dates a receipt's pending renewal info by its subscription's latest transaction
    /// (R2.7): billing retry and grace learned at the May renewal say nothing about the lapse after
    /// March, and do put the reader in grace after May's expiry.
    @Test func renewalInfo_countsFromItsEvidence_notForEarlierInstants() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("in.jsonl")
        func transaction(_ id: String, _ from: String, _ to: String) -> String {
            #"{"transaction_id": "\#(id)", "original_transaction_id": "g1", "product_id": "com.example.monthly", "purchase_date": "\#(from) Etc/GMT", "expires_date": "\#(to) Etc/GMT"}"#
        }
        let pending = #"[{"original_transaction_id": "g1", "product_id": "com.example.monthly", "auto_renew_status": "1", "is_in_billing_retry_period": "1", "expiration_intent": "2", "grace_period_expires_date_ms": "1592395200000"}]"#
        let line = #"{"user_id": "gina", "receipt": {"status": 0, "latest_receipt_info": [\#(transaction("g1", "2020-02-20 12:00:00", "2020-03-20 12:00:00")), \#(transaction("g2", "2020-05-01 12:00:00", "2020-06-01 12:00:00"))], "pending_renewal_info": \#(pending)}}"#
        try Data(line.utf8).write(to: input)
        let run = try Tool.run([
            "audit", "--catalog", "Catalog/the-monthly", "--receipts", input.path, "--at", "2020-03-25T00:00:00Z", "--at", "2020-06-10T00:00:00Z",
        ])
        #expect(run.status == 0)
        #expect(run.output == #"{"user_id":"gina","publication":"the-monthly","asOf":[{"at":"2020-03-25T00:00:00Z","status":"expired","readable":["2020-02","2020-03"]},{"at":"2020-06-10T00:00:00Z","status":"gracePeriod","readable":["2020-02","2020-03","2020-05","2020-06"]}]}"# + "\n")
    }
}
