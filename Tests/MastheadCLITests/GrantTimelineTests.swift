import Foundation
import Testing
import MastheadTestSupport

/// `masthead timeline` of a reader with the publisher's grants (R17): span grants in a row per
/// source, in their own colour, named by grant id (never as a transaction); granted issues
/// marked G; both in the legend.
struct GrantTimelineTests {
    /// The Table 6-1 reader (lapsed 20 April – 17 June 2020) as an audit input line with `grants`.
    static func line(grants: [String], in folder: URL) throws -> String {
        let receipt = try String(contentsOfFile: "Catalog/the-monthly/receipts/table-6-1.json", encoding: .utf8)
        let file = folder.appendingPathComponent("alice.json")
        try Data(#"{"user_id": "alice", "receipt": \#(receipt), "grants": [\#(grants.joined(separator: ", "))]}"#.utf8).write(to: file)
        return file.path
    }

    /// A print grant bridging the lapse, and a make-good January issue.
    static let bridge = [
        #"{"grantId": "g-bridge", "source": "print", "publications": ["the-monthly"], "access": "archive", "start": "2020-04-15", "end": "2020-06-20T00:00:00Z"}"#,
        #"{"grantId": "g-mg", "source": "makeGood", "publication": "the-monthly", "issues": ["2020-01"], "start": "2020-03-01"}"#,
    ]

    static func bridgedPicture() throws -> String {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        return try TimelineCommandTests.svg([try Self.line(grants: Self.bridge, in: folder)], at: "2020-07-02T00:00:00Z")
    }

    /// The print grant bridges the lapse: one archive period from 20 February to 17 July, May
    /// readable; the grant's bar in its row, named by grant and source.
    @Test func printGrantBridgingALapse_isDrawnInItsRow() throws {
        let elements = try SVGElements.read(try Self.bridgedPicture())
        let grants = elements.classed("interval", "grant")
        #expect(grants.count == 1)
        let grant = try #require(grants.first)
        #expect(grant.attributes["data-grant"] == "g-bridge")
        #expect(grant.attributes["data-source"] == "print")
        #expect(grant.attributes["data-transaction"] == nil && grant.attributes["data-product"] == nil)
        #expect(grant.attributes["data-start"] == "2020-04-15T00:00:00Z" && grant.attributes["data-end"] == "2020-06-20T00:00:00Z")
        let index = try #require(elements.firstIndex { $0.attributes["data-grant"] == "g-bridge" })
        let rect = try #require(elements.inside(index).first { $0.name == "rect" })
        #expect(rect.attributes["fill"] == "#8c6d31")
        #expect(elements.inside(index).contains { $0.classes.contains("bar-label") && $0.text.contains("g-bridge") })
        #expect(elements.classed("row").map(\.text).contains("print subscription"))
        // The grant's row lies below the product's, apart from it.
        let paidGroup = try #require(elements.classed("interval", "paid").first)
        let paid = try #require(TimelineCommandTests.bar(after: paidGroup, in: elements))
        let bar = try #require(TimelineCommandTests.bar(after: grant, in: elements))
        #expect(bar.y > paid.y)
        let periods = elements.classed("period", "archive")
        #expect(periods.map { "\($0.attributes["data-start"]!) \($0.attributes["data-end"]!)" } == ["2020-02-20T12:00:00Z 2020-07-17T12:00:00Z"])
        #expect(elements.classed("lapse").isEmpty)
        let issues = elements.classed("issue").map { "\($0.attributes["data-issue"]!) \($0.attributes["data-reason"]!)" }
        #expect(issues.prefix(7) == [
            "2020-01 granted", "2020-02 unlockedAtPeriodStart", "2020-03 publishedDuringPeriod", "2020-04 publishedDuringPeriod",
            "2020-05 publishedDuringPeriod", "2020-06 publishedDuringPeriod", "2020-07 publishedDuringPeriod",
        ])
        #expect(elements.classed("mark").map(\.text).contains("G"))
        #expect(SVGLayout.problems(elements).isEmpty, "\(SVGLayout.problems(elements).joined(separator: "\n"))")
    }

    /// The legend names the grant's colour and the G marker.
    @Test func legend_namesGrantsAndGrantedIssues() throws {
        let elements = try SVGElements.read(try Self.bridgedPicture())
        #expect(elements.classed("legend-label").map(\.text) == [
            "paid", "publisher grant", "archive period", "as-of instant", "published in a period", "unlocked at a period's start",
            "given by an issue grant", "not yet published",
        ])
    }

    /// A grant whose id is spelt as one of the reader's transaction ids, and whose source as
    /// their product's id, is drawn as a grant in a row of its own, never as that transaction
    /// or in that product's row.
    @Test func grantSpeltAsATransactionAndProduct_isNeverTakenForThem() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let grant = #"{"grantId": "1000001", "source": "com.example.monthly", "publications": ["the-monthly"], "access": "archive", "start": "2020-01-01", "end": "2020-01-20"}"#
        let elements = try SVGElements.read(try TimelineCommandTests.svg([try Self.line(grants: [grant], in: folder)], at: "2020-07-02T00:00:00Z"))
        #expect(elements.filter { $0.attributes["data-transaction"] == "1000001" }.map(\.classes) == [["interval", "paid"]])
        #expect(elements.filter { $0.attributes["data-grant"] == "1000001" }.map(\.classes) == [["interval", "grant"]])
        let rows = elements.classed("row").map(\.text)
        #expect(rows.filter { $0 == "com.example.monthly" }.count == 1)
        #expect(rows.contains("com.example.monthly grant"))
        let paidGroup = try #require(elements.classed("interval", "paid").first)
        let grantGroup = try #require(elements.classed("interval", "grant").first)
        let paid = try #require(TimelineCommandTests.bar(after: paidGroup, in: elements))
        let bar = try #require(TimelineCommandTests.bar(after: grantGroup, in: elements))
        #expect(bar.y != paid.y)
    }
}
