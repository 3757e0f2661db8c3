import Foundation
import MastheadJSON
import Testing

/// `masthead check` of an audit input line carrying the publisher's grants (R17): the grants
/// count, and the answer names them, in text and in JSON.
struct GrantCheckTests {
    /// Apple's Table 6-1 reader (lapsed 20 April – 17 June) with a print grant bridging the lapse
    /// and a make-good issue, as an audit input line.
    static func bridgedLine() throws -> String {
        let receipt = try String(contentsOfFile: "Catalog/the-monthly/receipts/table-6-1.json", encoding: .utf8)
        return #"""
            {"user_id": "alice", "receipt": \#(receipt), "grants": [
             {"grantId": "g-bridge", "source": "print", "publications": ["the-monthly"], "access": "archive", "start": "2020-04-15", "end": "2020-06-20"},
             {"grantId": "g-mg", "source": "makeGood", "publication": "the-monthly", "issues": ["2020-01"], "start": "2020-03-01"}]}
            """#
    }

    /// Runs check on a file holding `text`, as of 2 July 2020, with `extra` arguments.
    static func check(_ text: String, _ extra: [String] = []) throws -> (outcome: Tool.Outcome, path: String) {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("line.json")
        try Data(text.utf8).write(to: file)
        let outcome = try Tool.run(["check", "--catalog", "Catalog/the-monthly", "--receipt", file.path, "--at", "2020-07-02T00:00:00Z"] + extra)
        return (outcome, file.path)
    }

    @Test func text_explainsIssuesGivenByGrants() throws {
        let (outcome, _) = try Self.check(try Self.bridgedLine())
        #expect(outcome.status == 0)
        #expect(outcome.errors == "")
        let lines = outcome.output.split(separator: "\n").map(String.init)
        #expect(lines.contains("    2020-05  2020-05-01 00:00  yes  published during period #0, under print subscription g-bridge, 2020-04-15 – 2020-06-20"))
        #expect(lines.contains("    2020-01  2020-01-01 00:00  yes  given by make-good g-mg"))
        let readable = lines.filter { $0.contains("  yes  ") }.map { String($0.dropFirst(4).prefix(7)) }
        #expect(readable == ["2020-01", "2020-02", "2020-03", "2020-04", "2020-05", "2020-06", "2020-07"])
    }

    @Test func json_namesTheGrantsInIntervalsAndReasons() throws {
        let (outcome, _) = try Self.check(try Self.bridgedLine(), ["--format", "json"])
        #expect(outcome.status == 0)
        let root = try JSONDocument(parsing: outcome.output).root
        let publication = try #require(root["publications"]?.elements.first(where: { _ in true }))
        let intervals = try #require(publication["periods"]?.elements.first(where: { _ in true })?["intervals"]).elements
        let grant = try #require(intervals.first { $0["kind"]?.string == "grant" })
        #expect(grant["grantId"]?.string == "g-bridge")
        #expect(grant["source"]?.string == "print")
        #expect(grant["transactionId"] == nil)
        let january = try #require(publication["issues"]?.elements.first { $0["id"]?.string == "2020-01" })
        let reason = try #require(january["reasons"]?.elements.first(where: { _ in true }))
        #expect(reason["kind"]?.string == "granted")
        #expect(reason["grantId"]?.string == "g-mg")
    }

    /// A line with grants alone is a reader's whole history: the granted publication is answered.
    @Test func lineWithOnlyGrants_isAnswered() throws {
        let line = #"""
            {"user_id": "gina", "grants": [{"grantId": "g-1", "source": "comp", "publications": ["the-monthly"], "access": "archive", "start": "2020-05-10"}]}
            """#
        let (outcome, _) = try Self.check(line)
        #expect(outcome.status == 0)
        #expect(outcome.output.contains("  Status   active"))
        #expect(outcome.output.contains("    2020-06  2020-06-01 00:00  yes  published during period #0, under complimentary access g-1, 2020-05-10 – open-ended"))
    }

    @Test func badGrant_exitsOne_namingFileAndFieldPath() throws {
        let line = #"""
            {"user_id": "gina", "grants": [{"grantId": "g-1", "source": "comp", "publications": ["the-monthly"], "access": "archive", "start": "2020-05-10"},
             {"grantId": "g-2", "source": "comp", "publications": ["the-monthly"], "access": "archive", "start": "10 May"}]}
            """#
        let (outcome, path) = try Self.check(line)
        #expect(outcome.status == 1)
        #expect(outcome.errors.contains(path))
        #expect(outcome.errors.contains("$.grants[1].start"))
        #expect(outcome.output == "")
    }
}
