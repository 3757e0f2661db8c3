import Foundation
import MastheadJSON
import Testing

/// `masthead check` end to end, launching the built binary.
struct CheckCommandTests {
    static let readmeCheck = [
        "check", "--catalog", "Catalog/the-monthly", "--receipt", "Catalog/the-monthly/receipts/table-6-1.json",
        "--at", "2020-07-02T00:00:00Z",
    ]

    @Test func readmeCommand_printsTable61Entitlements() throws {
        let outcome = try Tool.run(Self.readmeCheck)
        #expect(outcome.status == 0)
        #expect(outcome.errors == "")
        let lines = outcome.output.split(separator: "\n").map(String.init)
        #expect(lines.first == "As of 2020-07-02 00:00 UTC, production environment")
        #expect(lines.contains("  Status   active, auto-renew on, product com.example.monthly"))
        #expect(lines.contains("  Periods  #0 archive   2020-02-20 12:00 → 2020-04-20 12:00   2 intervals (paid, paid)"))
        #expect(lines.contains("              lapse     2020-04-20 12:00 → 2020-06-17 12:00"))
        #expect(lines.contains("    2020-05  2020-05-01 00:00  no   published during a lapse (2020-04-20 12:00 → 2020-06-17 12:00)"))
        #expect(lines.contains("    2020-06  2020-06-01 00:00  yes  unlocked when period #1 started (2020-06-17 12:00)"))
        let readable = lines.filter { $0.contains("  yes  ") }.map { String($0.dropFirst(4).prefix(7)) }
        #expect(readable == ["2020-02", "2020-03", "2020-04", "2020-06", "2020-07"])
    }

    @Test func jsonFormat_isParseable_andCarriesReasons() throws {
        let outcome = try Tool.run(Self.readmeCheck + ["--format", "json"])
        #expect(outcome.status == 0)
        let root = try JSONDocument(parsing: outcome.output).root
        #expect(root["at"]?.string == "2020-07-02T00:00:00Z")
        let publication = try #require(root["publications"]?.elements.first(where: { _ in true }))
        #expect(publication["status"]?["state"]?.string == "active")
        #expect(publication["readable"]?.elements.map { $0.string! } == ["2020-02", "2020-03", "2020-04", "2020-06", "2020-07"])
        #expect(publication["periods"]?.count == 2)
        let may = try #require(publication["issues"]?.elements.first { $0["id"]?.string == "2020-05" })
        #expect(may["readable"]?.bool == false)
        #expect(may["reason"]?["kind"]?.string == "publishedDuringLapse")
        #expect(may["reason"]?["lapseEnd"]?.string == "2020-06-17T12:00:00Z")
        let february = try #require(publication["issues"]?.elements.first { $0["id"]?.string == "2020-02" })
        #expect(february["reasons"]?.elements.first(where: { _ in true })?["kind"]?.string == "unlockedAtPeriodStart")
    }

    @Test func publicationOption_showsPublicationWithoutTransactions() throws {
        let outcome = try Tool.run([
            "check", "--catalog", "Catalog/the-monthly", "--receipt", "Catalog/the-monthly/receipts/table-6-1.json",
            "--at", "2020-07-02T00:00:00Z", "--environment", "sandbox", "--publication", "the-monthly",
        ])
        #expect(outcome.status == 0)
        #expect(outcome.output.contains("sandbox environment"))
        #expect(outcome.output.contains("  Status   none"))
        #expect(outcome.output.contains("no subscription, purchase or grant gives it"))
    }

    @Test func badReceipt_exitsOne_namingFileAndField() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("bad.json")
        try Data(#"{"status": 0, "latest_receipt_info": [{"transaction_id": "1", "product_id": "com.example.monthly", "purchase_date_ms": "x"}]}"#.utf8).write(to: file)
        let outcome = try Tool.run(["check", "--catalog", "Catalog/the-monthly", "--receipt", file.path])
        #expect(outcome.status == 1)
        #expect(outcome.errors.contains("bad.json"))
        #expect(outcome.errors.contains("$.latest_receipt_info[0].purchase_date_ms"))
        #expect(outcome.output == "")
    }

    @Test func rejectedStatus_isNamed() throws {
        let outcome = try Tool.run([
            "check", "--catalog", "Catalog/the-monthly", "--receipt", "Tests/Fixtures/appstore/verify-receipt/awa-go-iap--status-21007.json",
        ])
        #expect(outcome.status == 1)
        #expect(outcome.errors.contains("status 21007: environment mismatch: a sandbox (test) receipt was sent to the production environment"))
    }

    @Test func missingFile_exits66() throws {
        let outcome = try Tool.run(["check", "--catalog", "Catalog/the-monthly", "--receipt", "no/such/file.json"])
        #expect(outcome.status == 66)
        #expect(outcome.errors == "masthead: cannot read no/such/file.json: No such file or directory\n")
    }
}
