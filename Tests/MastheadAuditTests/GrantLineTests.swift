import Foundation
import MastheadAudit
import MastheadJSON
import MastheadReports
import Testing

/// Receipts lines carrying the publisher's grants (R17), `"grants": [...]` beside or instead of
/// a receipt: each publication a grant names gets a line, bad grants are reported by field path
/// and line, what was served under a grant is entitled, and the summary tells access from the
/// App Store and from grants apart.
struct GrantLineTests {
    /// A print grant of The Monthly, archive access, `[start, end)`.
    static func printGrant(_ id: String, start: String, end: String) -> String {
        #"{"grantId": "\#(id)", "source": "print", "publications": ["the-monthly"], "access": "archive", "start": "\#(start)", "end": "\#(end)"}"#
    }

    /// A line of `user` with `grants` and, when named, a shipped receipt beside them.
    static func line(_ user: String, receipt: String? = nil, grants: [String]) throws -> String {
        let receiptMember = try receipt.map { #""receipt": \#(try AuditFixture.receipt($0)), "# } ?? ""
        return #"{"user_id": "\#(user)", \#(receiptMember)"grants": [\#(grants.joined(separator: ", "))]}"#
    }

    /// Audits `lines` at `instants` in-process, with the served log `served` (CSV rows after the
    /// header) when given.
    static func audit(_ lines: [String], at instants: [String], served: [String]? = nil) throws -> (result: AuditResult, sink: CollectingSink, path: String) {
        let fixture = try AuditFixture()
        defer { fixture.remove() }
        let path = try fixture.file("receipts.jsonl", lines)
        let configuration = AuditConfiguration(
            catalog: AuditFixture.catalog, source: .receipts(path: path), instants: instants.map(AuditFixture.instant),
            grantsPath: try served.map { try fixture.file("served.csv", ["user_id,publication,issue_id,granted_at"] + $0) })
        let (result, sink) = try AuditFixture.run(configuration)
        return (result, sink, path)
    }

    static func readable(_ value: JSONValue?) -> [String] { value?.elements.map { $0.string! } ?? [] }

    /// A line with grants alone is a user: their line for The Monthly is written even as of an
    /// instant before the grant starts (nothing readable then), and the grant gives the archive
    /// from its start: the latest issue then, and every issue published during it.
    @Test func lineWithOnlyGrants_getsALinePerGrantedPublication_evenBeforeTheGrantStarts() throws {
        let line = try Self.line("gina", grants: [Self.printGrant("g-1", start: "2020-05-10", end: "2021-01-01")])
        let (result, sink, _) = try Self.audit([line], at: ["2020-04-01T00:00:00Z", "2020-07-02T00:00:00Z"])
        #expect(sink.rejected.isEmpty)
        #expect(sink.lines.count == 1)
        let gina = try JSONDocument(parsing: Array(try #require(sink.lines.first).utf8)).root
        #expect(gina["user_id"]?.string == "gina" && gina["publication"]?.string == "the-monthly")
        let asOf = Array(try #require(gina["asOf"]?.elements))
        #expect(asOf[0]["status"]?.string == "none")
        #expect(Self.readable(asOf[0]["readable"]).isEmpty)
        #expect(asOf[1]["status"]?.string == "active")
        #expect(Self.readable(asOf[1]["readable"]) == ["2020-05", "2020-06", "2020-07"])
        #expect((result.summary.users, result.summary.rejectedLines, result.summary.outputLines) == (1, 0, 1))
    }

    /// A print grant bridging the lapse of Apple's Table 6-1 reader (20 April – 17 June) makes
    /// the May and June issues readable, which the receipt alone does not.
    @Test func grantsBesideAReceipt_areAddedToThePurchases() throws {
        let withGrant = try Self.line("alice", receipt: "table-6-1", grants: [Self.printGrant("g-bridge", start: "2020-04-15", end: "2020-06-20")])
        let withoutGrant = try AuditFixture.line("bob", "table-6-1")
        let (_, sink, _) = try Self.audit([withGrant, withoutGrant], at: ["2020-07-02T00:00:00Z"])
        #expect(sink.rejected.isEmpty)
        let lines = try sink.lines.map { try JSONDocument(parsing: Array($0.utf8)).root }
        let alice = try #require(lines.first { $0["user_id"]?.string == "alice" })
        let bob = try #require(lines.first { $0["user_id"]?.string == "bob" })
        #expect(Self.readable(alice["readable"]) == ["2020-02", "2020-03", "2020-04", "2020-05", "2020-06", "2020-07"])
        #expect(!Self.readable(bob["readable"]).contains("2020-05"))
    }

    /// A grant that cannot be read rejects its line, naming the field's path and the file's line;
    /// the other lines are audited.
    @Test func badGrant_rejectsTheLine_namingTheFieldPathAndLine() throws {
        let good = try Self.line("gina", grants: [Self.printGrant("g-1", start: "2020-05-10", end: "2021-01-01")])
        let bad = try Self.line("hal", grants: [Self.printGrant("g-2", start: "2020-05-10", end: "2021-01-01"), Self.printGrant("g-3", start: "soon", end: "2021-01-01")])
        let backwards = try Self.line("ivy", receipt: "table-6-1", grants: [Self.printGrant("g-4", start: "2021-01-01", end: "2020-05-10")])
        let (result, sink, path) = try Self.audit([good, bad, backwards], at: ["2020-07-02T00:00:00Z"])
        #expect(sink.rejected.count == 2)
        #expect(sink.rejected[0].hasPrefix("\(path):2: "))
        #expect(sink.rejected[0].contains("$.grants[1].start"))
        #expect(sink.rejected[1].hasPrefix("\(path):3: "))
        #expect(sink.rejected[1].contains("$.grants[0].end"))
        #expect(sink.lines.count == 1)
        #expect((result.summary.users, result.summary.rejectedLines) == (1, 2))
    }

    /// A line without receipt, signed data or grants still names what it lacks.
    @Test func lineWithoutReceiptOrGrants_isRejectedForTheMissingReceipt() throws {
        let (_, sink, path) = try Self.audit([#"{"user_id": "gina"}"#], at: ["2020-07-02T00:00:00Z"])
        #expect(sink.rejected == ["\(path):1: missing field $.receipt (line 1)"])
    }

    /// Reconciliation with what was served: issues served to a reader whose only access is
    /// the publisher's grants (a span and a make-good issue) are entitled, neither over-granted
    /// nor from a user without a line; an issue served outside the grant still is over-granted.
    @Test func issuesServedUnderAGrant_areEntitled_notOverGranted() throws {
        let makeGood = #"{"grantId": "g-mg", "source": "makeGood", "publication": "the-monthly", "issues": ["2020-02"], "start": "2020-03-01"}"#
        let line = try Self.line("gina", grants: [Self.printGrant("g-1", start: "2020-05-10", end: "2021-01-01"), makeGood])
        let served = [
            "gina,the-monthly,2020-06,2020-06-02T00:00:00Z", "gina,the-monthly,2020-02,2020-03-02T00:00:00Z",
            "gina,the-monthly,2020-03,2020-06-02T00:00:00Z",
        ]
        let (result, sink, _) = try Self.audit([line], at: ["2020-07-02T00:00:00Z"], served: served)
        let gina = try JSONDocument(parsing: Array(try #require(sink.lines.first).utf8)).root
        #expect(gina["overGranted"]?.elements.map { $0["issue"]!.string! } == ["2020-03"])
        #expect(result.summary.total(.overGranted) == [1])
        #expect(result.summary.unknownGrantUsers == 0)
    }

    /// The summary counts lines by where their access comes from, per instant, and the grants
    /// by source; lines without access count in none of the three.
    @Test func summary_countsLinesByAccessSource_andGrantsBySource() throws {
        let comp = #"{"grantId": "g-c", "source": "comp", "publications": ["the-monthly"], "access": "archive", "start": "2020-01-01", "end": "2020-02-01"}"#
        let lines = [
            try AuditFixture.line("alice", "table-6-1"),
            try Self.line("bob", receipt: "table-6-1", grants: [Self.printGrant("g-bridge", start: "2020-04-15", end: "2020-06-20")]),
            try Self.line("gina", grants: [Self.printGrant("g-1", start: "2020-05-10", end: "2021-01-01"), comp]),
        ]
        // 1 March: alice and bob are subscribed (bob's grant has not started), gina holds the
        // January comp issue. 10 May: alice keeps February – April; bob also May (his grant);
        // gina's access is all grants.
        let (result, _, _) = try Self.audit(lines, at: ["2020-03-01T00:00:00Z", "2020-05-10T00:00:00Z"])
        let counts = result.summary.byAccessSource
        #expect(counts.map(\.appStoreOnly) == [2, 1])
        #expect(counts.map(\.grantsOnly) == [1, 1])
        #expect(counts.map(\.both) == [0, 1])
        #expect(result.summary.grantSources == ["comp", "print"])
        #expect(result.summary.grantsBySource.values.sorted() == [1, 2])
        let json = try JSONDocument(parsing: result.summary.json).root
        #expect(json["accessFrom"]?["grantsOnly"]?.elements.map { $0.int64! } == [1, 1])
        #expect(json["accessFrom"]?["both"]?.elements.map { $0.int64! } == [0, 1])
        #expect(json["grantsBySource"]?.elements.map { "\($0["source"]!.string!)=\($0["grants"]!.int64!)" } == ["comp=1", "print=2"])
        #expect(result.summary.rendered.contains("grants only"))
        let page = AuditReportPage(result.reportContent(catalogPath: "catalog", generated: AuditFixture.instant("2020-07-02T00:00:00Z"), version: "test")).html
        #expect(page.contains("<td>publisher grants only</td><td>1</td><td>1</td>"))
        #expect(page.contains("<td>print subscription (print)</td><td>2</td>"))
        let doubled = result.summary.adding(result.summary)
        #expect(doubled.byAccessSource.map(\.both) == [0, 2])
        #expect(doubled.grantsBySource.values.sorted() == [2, 4])
    }
}
