import Foundation
import Masthead
import MastheadAudit
@testable import MastheadCLI
import Testing
import MastheadTestSupport

/// The audit's other outputs: CSV, the HTML report, the summary per product, the progress line.
struct AuditOutputTests {
    /// alice (Table 6-1) and frank (one issue bought), and what the content system served them.
    static func inputs(in folder: URL) throws -> (receipts: URL, grants: URL) {
        let receipts = folder.appendingPathComponent("in.jsonl")
        let lines = [try AuditCommandTests.receiptLine("alice", "table-6-1"), try AuditCommandTests.receiptLine("frank", "single-issue")]
        try Data(lines.joined(separator: "\n").utf8).write(to: receipts)
        let grants = folder.appendingPathComponent("grants.csv")
        try Data("user_id,publication,issue_id,granted_at\nalice,the-monthly,2020-03\nalice,the-monthly,2020-05\nfrank,the-monthly,2020-06\n".utf8).write(to: grants)
        return (receipts, grants)
    }

    @Test func csv_oneRowPerUserAndPublication_reasonsByName() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (receipts, grants) = try Self.inputs(in: folder)
        let run = try Tool.run([
            "audit", "--catalog", "Catalog/the-monthly", "--receipts", receipts.path, "--at", "2020-07-02T00:00:00Z", "--grants", grants.path, "--format", "csv",
        ])
        #expect(run.status == 0)
        #expect(run.output == """
            user_id,publication,status,readable,over_granted,under_granted,held_after_entitlement_ended
            alice,the-monthly,active,2020-02 2020-03 2020-04 2020-06 2020-07,2020-05=publishedDuringLapse,\
            2020-02=unlockedAtPeriodStart 2020-04=publishedDuringPeriod 2020-06=unlockedAtPeriodStart 2020-07=publishedDuringPeriod,
            frank,the-monthly,none,2020-05,2020-06=notSubscribed,2020-05=singlePurchase,

            """)
        let plain = try Tool.run(["audit", "--catalog", "Catalog/the-monthly", "--receipts", receipts.path, "--at", "2020-07-02T00:00:00Z", "--format", "csv"])
        #expect(plain.output.split(separator: "\n").first == "user_id,publication,status,readable")
    }

    /// Several instants: the columns repeat per instant, suffixed with it.
    @Test func csv_severalInstants_columnsPerInstant() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (receipts, _) = try Self.inputs(in: folder)
        let run = try Tool.run([
            "audit", "--catalog", "Catalog/the-monthly", "--receipts", receipts.path, "--at", "2020-03-31T23:59:59Z", "--at", "2020-07-02T00:00:00Z",
            "--format", "csv",
        ])
        #expect(run.output == """
            user_id,publication,status@2020-03-31T23:59:59Z,readable@2020-03-31T23:59:59Z,status@2020-07-02T00:00:00Z,readable@2020-07-02T00:00:00Z
            alice,the-monthly,active,2020-02 2020-03,active,2020-02 2020-03 2020-04 2020-06 2020-07
            frank,the-monthly,none,,none,2020-05

            """)
    }

    /// The summary counts per product (entitled / lines) at each instant.
    @Test func summary_perProduct() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (receipts, _) = try Self.inputs(in: folder)
        let run = try Tool.run([
            "audit", "--catalog", "Catalog/the-monthly", "--receipts", receipts.path, "--at", "2020-03-31T23:59:59Z", "--at", "2020-05-31T23:59:59Z",
            "--at", "2020-07-02T00:00:00Z",
        ])
        #expect(Tool.summaryRow(run.errors, "com.example.monthly") == ["1 / 1", "0 / 1", "1 / 1"])
        #expect(Tool.summaryRow(run.errors, "(single issues)") == ["0 / 0", "0 / 0", "0 / 1"])
        #expect(Tool.summaryRow(run.errors, "(none)") == ["0 / 1", "0 / 1", "0 / 0"])
        #expect(!run.errors.contains("\r"), "no progress line when standard error is not a terminal")
    }

    /// One self-contained page: the chart's bars hold the summary's counts, laid out as a reader
    /// would want; the findings by kind and product, worst first, per instant; nothing is
    /// fetched from anywhere.
    @Test func report_chartCountsAndFindingsByKindAndProduct() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (receipts, grants) = try Self.inputs(in: folder)
        let report = folder.appendingPathComponent("report.html")
        let run = try Tool.run([
            "audit", "--catalog", "Catalog/the-monthly", "--receipts", receipts.path, "--at", "2020-03-31T23:59:59Z", "--at", "2020-07-02T00:00:00Z",
            "--grants", grants.path, "--report", report.path, "--output", folder.appendingPathComponent("out.jsonl").path,
        ])
        #expect(run.status == 0)
        let html = try String(contentsOf: report, encoding: .utf8)
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        for outside in ["<script", "src=", "href=", "@import", "url(http"] { #expect(!html.contains(outside)) }
        #expect(html.contains("<tr><td>masthead</td><td>\(MastheadVersion.current)</td></tr>"))
        #expect(html.contains("<tr><td>generated</td><td>20"))
        let chartStart = try #require(html.range(of: "<svg"))
        let chartEnd = try #require(html.range(of: "</svg>"))
        let chart = try SVGElements.read(String(html[chartStart.lowerBound..<chartEnd.upperBound]))
        #expect(chart.classed("bar").map { $0.attributes["data-at"] } == ["2020-03-31T23:59:59Z", "2020-07-02T00:00:00Z"])
        let segments = chart.filter { $0.attributes["data-state"] != nil }.map { "\($0.attributes["data-state"]!)=\($0.attributes["data-count"]!)" }
        #expect(segments == ["active=1", "none=1", "active=1", "none=1"])
        #expect(chart.classed("segment-label").map(\.text) == ["active 1", "none 1", "active 1", "none 1"])
        #expect(SVGLayout.problems(chart).isEmpty, "\(SVGLayout.problems(chart))")
        // Per instant, side by side; per kind, then per product worst first.
        #expect(html.contains(#"<tr class="kind overGranted"><td>over-granted</td><td>2</td><td>2</td></tr>"#))
        #expect(html.contains(#"<tr class="kind underGranted"><td>under-granted</td><td>1</td><td>5</td></tr>"#))
        #expect(html.contains(#"<tr class="product underGranted"><td>com.example.monthly</td><td>1</td><td>4</td></tr><tr class="product underGranted"><td>(single issues)</td><td>0</td><td>1</td></tr>"#))
        let groups = html.components(separatedBy: "<h4 class=").dropFirst().map { $0.components(separatedBy: "</h4>")[0] }
        #expect(groups.map { $0.components(separatedBy: ">").dropFirst().joined(separator: ">") } == [
            "As of 2020-03-31T23:59:59Z: over-granted, com.example.monthly — 1 issue", "As of 2020-03-31T23:59:59Z: over-granted, (none) — 1 issue",
            "As of 2020-03-31T23:59:59Z: under-granted, com.example.monthly — 1 issue",
            "As of 2020-07-02T00:00:00Z: over-granted, (single issues) — 1 issue", "As of 2020-07-02T00:00:00Z: over-granted, com.example.monthly — 1 issue",
            "As of 2020-07-02T00:00:00Z: under-granted, com.example.monthly — 4 issues", "As of 2020-07-02T00:00:00Z: under-granted, (single issues) — 1 issue",
        ])
        #expect(html.contains("<td>alice</td><td>the-monthly</td><td>2020-05: published during a lapse (2020-04-20 12:00 → 2020-06-17 12:00)</td>"))
        #expect(Tool.summaryRow(run.errors, "overGranted") == ["2", "2"])
        #expect(Tool.summaryRow(run.errors, "underGranted") == ["1", "5"])
        #expect(html.contains("<td>com.example.monthly</td><td>1 / 1</td><td>1 / 1</td>"))
    }

    /// The report's times name their zone (a grant's serving time among them), the statuses and
    /// the product names that are not products are explained, and the grants the audit could not
    /// place are listed.
    @Test func report_timesInUTC_wordsExplained_unplacedGrantsListed() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (receipts, _) = try Self.inputs(in: folder)
        let grants = folder.appendingPathComponent("served.csv")
        try Data("alice,the-monthly,2020-05,2020-05-02T00:00:00Z\nfrank,the-monthly,1999-01\n".utf8).write(to: grants)
        let report = folder.appendingPathComponent("report.html")
        let run = try Tool.run([
            "audit", "--catalog", "Catalog/the-monthly", "--receipts", receipts.path, "--at", "2020-07-02T00:00:00Z", "--grants", grants.path,
            "--report", report.path,
        ])
        #expect(run.status == 0)
        let html = try String(contentsOf: report, encoding: .utf8)
        #expect(html.contains("All times are UTC."))
        #expect(html.contains("2020-05: served 2020-05-02 00:00 UTC: published during a lapse"))
        #expect(html.contains("<dt>none</dt><dd>no subscription"))
        #expect(html.contains("<dt>(none)</dt><dd>nothing the reader bought"))
        #expect(html.contains("<li>\(grants.path):2: publication the-monthly has no issue 1999-01</li>"))
    }

    /// On a terminal, a progress line (users, MB, rate, ETA) is redrawn in place and erased at the end.
    @Test func progress_onTerminalOnly() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let population = folder.appendingPathComponent("population.jsonl")
        let generate = try Tool.run(["generate", "--catalog", "Catalog/the-monthly", "--users", "9000", "--seed", "3", "--output", population.path])
        #expect(generate.status == 0)
        let output = folder.appendingPathComponent("out.jsonl")
        let command = [Tool.binary.path, "audit", "--catalog", "Catalog/the-monthly", "--receipts", population.path, "--output", output.path]
            .map { "'\($0)'" }.joined(separator: " ")
        // util-linux `script` runs the audit with a pseudo-terminal as its standard error.
        let terminal = try Tool.runProgram("/usr/bin/script", ["-q", "-e", "-c", command, "/dev/null"])
        #expect(terminal.status == 0)
        #expect(terminal.output.split(separator: "\r").contains { $0.first?.isNumber == true && $0.contains(" users · ") })
        #expect(terminal.output.contains(" MB ("))
        #expect(terminal.output.contains(" users/s"))
        #expect(terminal.output.contains("\r\u{1B}[K"))
        #expect(terminal.output.contains("audit summary"))
    }

    @Test func progressLine_rendering() {
        #expect(AuditProgress.render(AuditPosition(unit: .bytes, users: 41_200, done: 212_400_000, total: 550_100_000), elapsed: 2)
            == "41200 users · 212.4 / 550.1 MB (38%) · 20600 users/s · ETA 4 s")
        #expect(AuditProgress.render(AuditPosition(unit: .users, users: 120_000, done: 120_000, total: 1_000_000), elapsed: 3)
            == "120000 / 1000000 users (12%) · 40000 users/s · ETA 22 s")
        #expect(AuditProgress.render(AuditPosition(unit: .bytes, users: 10, done: 5_000_000, total: nil), elapsed: 1) == "10 users · 5.0 MB · 10 users/s")
    }
}
