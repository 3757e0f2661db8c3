import Foundation
import MastheadJSON
import Testing

/// `masthead generate`: deterministic, readable by `audit`, varied.
struct GenerateCommandTests {
    @Test func sameSeed_sameBytes_otherSeed_otherBytes_andAuditReadsEveryLine() throws {
        let first = try Tool.run(["generate", "--catalog", "Catalog/the-monthly", "--users", "300", "--seed", "7"])
        let again = try Tool.run(["generate", "--catalog", "Catalog/the-monthly", "--users", "300", "--seed", "7"])
        let other = try Tool.run(["generate", "--catalog", "Catalog/the-monthly", "--users", "300", "--seed", "8"])
        #expect(first.status == 0)
        #expect(first.output == again.output)
        #expect(first.output != other.output)
        let lines = first.output.split(separator: "\n")
        #expect(lines.count == 300)
        // Shapes of R2 appear: sandbox receipts, refunds, upgrades, every date shape.
        for fragment in [#""environment":"Sandbox""#, #""cancellation_date"#, #""is_upgraded""#, #""purchase_date_ms":1"#,
                         #""purchase_date_ms":"1"#, #"Etc/GMT""#, #""is_in_billing_retry_period":"1""#, "com.example.pass", "com.example.issue"] {
            #expect(first.output.contains(fragment), "\(fragment)")
        }
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("population.jsonl")
        try Data(first.output.utf8).write(to: input)
        let audit = try Tool.run(["audit", "--catalog", "Catalog/the-monthly", "--receipts", input.path, "--at", "2021-06-30T00:00:00Z"])
        #expect(audit.status == 0)
        #expect(Tool.summaryRow(audit.errors, "users") == ["300"])
        #expect(Tool.summaryRow(audit.errors, "rejected lines") == ["0"])
    }

    @Test func usage() throws {
        #expect(try Tool.run(["generate", "--catalog", "Catalog/the-monthly"]).status == 64)
        #expect(try Tool.run(["generate", "--catalog", "Catalog/the-monthly", "--users", "x"]).status == 64)
        #expect(try Tool.run(["generate", "--help"]).output.hasPrefix("Usage: masthead generate"))
    }

    /// Grants for a demo: the same receipts as without them, and an audit against them finds some
    /// of every kind at every instant (a few leaks, a few issues left out, streaming readers who
    /// lapsed still holding what they were served) and no grant it cannot place.
    @Test func grants_describeMostEntitlements_withAFewMistakes() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let users = folder.appendingPathComponent("users.jsonl")
        let grants = folder.appendingPathComponent("grants.csv")
        let instants = ["2021-03-31T23:59:59Z", "2021-06-30T23:59:59Z"]
        let run = try Tool.run([
            "generate", "--catalog", "Catalog/the-monthly", "--users", "2000", "--seed", "5", "--output", users.path,
            "--grants", grants.path,
        ] + instants.flatMap { ["--grants-at", $0] })
        #expect(run.status == 0)
        let plain = try Tool.run(["generate", "--catalog", "Catalog/the-monthly", "--users", "2000", "--seed", "5"])
        #expect(try String(contentsOf: users, encoding: .utf8) == plain.output)
        let rows = try String(contentsOf: grants, encoding: .utf8).split(separator: "\n")
        #expect(rows.first == "user_id,publication,issue_id,granted_at")
        let audit = try Tool.run([
            "audit", "--catalog", "Catalog/the-monthly", "--receipts", users.path, "--grants", grants.path,
            "--output", folder.appendingPathComponent("audit.jsonl").path,
        ] + instants.flatMap { ["--at", $0] })
        #expect(audit.status == 0)
        func counts(_ label: String) -> [Int] { (Tool.summaryRow(audit.errors, label) ?? []).map { Int($0) ?? -1 } }
        let over = counts("overGranted")
        let under = counts("underGranted")
        let held = counts("heldAfterEntitlementEnded")
        // About 3 % of 2,000 users served one issue they could not read then, by the last instant.
        #expect(over.count == 2 && over[0] > 0 && (20...100).contains(over[1]), "\(over)")
        // About 2 % of the served issues left out.
        #expect(under.count == 2 && under.allSatisfy { $0 > 0 && $0 * 20 < rows.count }, "\(under) of \(rows.count)")
        #expect(held.count == 2 && held.allSatisfy { $0 > 0 }, "\(held)")
        #expect(Tool.summaryRow(audit.errors, "unknown grants") == ["users 0, publications 0, issues 0"])
        // Decided on every core, written in input order: the same bytes every time.
        let again = try Tool.run([
            "audit", "--catalog", "Catalog/the-monthly", "--receipts", users.path, "--grants", grants.path,
        ] + instants.flatMap { ["--at", $0] })
        #expect(again.output == (try String(contentsOf: folder.appendingPathComponent("audit.jsonl"), encoding: .utf8)))
        #expect(again.errors == audit.errors)
    }
}
