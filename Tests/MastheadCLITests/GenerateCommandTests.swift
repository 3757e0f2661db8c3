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
}
