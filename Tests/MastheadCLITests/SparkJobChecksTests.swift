import Foundation
import Testing

/// The Spark audit job's own checks (partitioning by the user id's bytes, byte-order marks,
/// summaries), which need Python but not Spark: `python3 -m unittest` on Tests/MastheadSpark; and
/// its summaries against masthead's.
struct SparkJobChecksTests {
    /// python3 on the usual paths, or nil.
    static let python: String? = ["/usr/bin/python3", "/usr/local/bin/python3"].first { FileManager.default.isExecutableFile(atPath: $0) }
        ?? ProcessInfo.processInfo.environment["PATH"]?.split(separator: ":").map { "\($0)/python3" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }

    @Test(.enabled(if: python != nil, "python3 is not installed: the Spark job's checks need it"))
    func sparkJob_unitChecks_pass() throws {
        let outcome = try Tool.runProgram(try #require(Self.python), ["-m", "unittest", "discover", "-s", "Tests/MastheadSpark"])
        #expect(outcome.status == 0, "\(outcome.errors)")
        #expect(outcome.errors.contains("OK"), "\(outcome.errors)")
    }

    /// An audit split into two parts by user, each with its own users' grants, as the job splits
    /// it: the parts' `--summary-json` summaries, added up and laid out by the job, are the
    /// summary table masthead prints for the whole audit, byte for byte.
    @Test(.enabled(if: python != nil, "python3 is not installed: the Spark job's checks need it"))
    func sparkJob_addedUpJSONSummaries_areTheWholeAuditsTable() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let users = folder.appendingPathComponent("users.jsonl")
        let grants = folder.appendingPathComponent("grants.csv")
        let instants = ["--at", "2021-03-31T23:59:59Z", "--at", "2021-06-30T23:59:59Z"]
        let generated = try Tool.run(
            ["generate", "--catalog", "Catalog/the-monthly", "--users", "400", "--seed", "6", "--output", users.path, "--grants", grants.path]
                + ["--grants-at", "2021-03-31T23:59:59Z", "--grants-at", "2021-06-30T23:59:59Z"])
        #expect(generated.status == 0)
        let userLines = try String(contentsOf: users, encoding: .utf8).split(separator: "\n").map(String.init)
        let grantLines = try String(contentsOf: grants, encoding: .utf8).split(separator: "\n").map(String.init)
        /// Whether a generated user (`user-N`) is in the first part.
        func first(_ line: String) -> Bool {
            let digits = line.drop { !$0.isNumber }.prefix { $0.isNumber }
            return Int(digits).map { $0 < 200 } ?? true
        }
        let parts = [true, false].map { inFirst in
            (receipts: userLines.filter { first($0) == inFirst } + (inFirst ? ["{not json"] : []),
             grants: [grantLines[0]] + grantLines.dropFirst().filter { first($0) == inFirst })
        }
        try Data((userLines + ["{not json"]).map { $0 + "\n" }.joined().utf8).write(to: users)
        let whole = try Tool.run(
            ["audit", "--catalog", "Catalog/the-monthly", "--receipts", users.path, "--grants", grants.path] + instants)
        #expect(whole.status == 1)
        let table = try #require(whole.errors.range(of: "\naudit summary\n")).upperBound
        let wholeTable = "audit summary\n" + whole.errors[table...]
        var summaries: [String] = []
        for (index, part) in parts.enumerated() {
            let receipts = folder.appendingPathComponent("part-\(index).jsonl")
            let partGrants = folder.appendingPathComponent("part-\(index).csv")
            let summary = folder.appendingPathComponent("part-\(index).json")
            try Data(part.receipts.map { $0 + "\n" }.joined().utf8).write(to: receipts)
            try Data(part.grants.map { $0 + "\n" }.joined().utf8).write(to: partGrants)
            let run = try Tool.run(
                ["audit", "--catalog", "Catalog/the-monthly", "--receipts", receipts.path, "--grants", partGrants.path, "--summary-json", summary.path]
                    + ["--output", folder.appendingPathComponent("part-\(index).out").path] + instants)
            #expect(run.status == (index == 0 ? 1 : 0), "\(run.errors)")
            summaries.append(summary.path)
        }
        let script = """
            import sys
            sys.path.insert(0, "Sources/MastheadSpark")
            import masthead_audit_job as job
            parts = [job.read_summary(open(path, encoding="utf-8").read()) for path in sys.argv[1:]]
            sys.stdout.write(job.render_summary(job.add_summaries(*parts)))
            """
        let added = try Tool.runProgram(try #require(Self.python), ["-c", script] + summaries)
        #expect(added.status == 0, "\(added.errors)")
        #expect(added.output == wholeTable)
        #expect(Tool.summaryRow(wholeTable, "rejected lines") == ["1"])
        #expect(Tool.summaryRow(wholeTable, "overGranted")?.contains { $0 != "0" } == true)
    }
}
