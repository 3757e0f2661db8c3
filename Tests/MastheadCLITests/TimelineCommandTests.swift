import Foundation
import Testing

/// `masthead timeline`: the picture holds the right bars, gaps and ticks, in the right places.
struct TimelineCommandTests {
    static func draw(_ receipt: String, at: String, extra: [String] = []) throws -> [SVGElements.Element] {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("timeline.svg")
        let run = try Tool.run(
            ["timeline", "--catalog", "Catalog/the-monthly", "--receipt", "Catalog/the-monthly/receipts/\(receipt).json", "--at", at, "--output", output.path]
                + extra)
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output == "")
        return try SVGElements.read(String(contentsOf: output, encoding: .utf8))
    }

    /// The first `rect` after `element` (the bar inside a group), as (x, width).
    static func bar(after group: SVGElements.Element, in elements: [SVGElements.Element]) -> (x: Double, width: Double)? {
        guard let index = elements.firstIndex(where: { $0.attributes == group.attributes && $0.name == group.name }),
            let rect = elements[(index + 1)...].first(where: { $0.name == "rect" }),
            let x = rect.attributes["x"].flatMap(Double.init), let width = rect.attributes["width"].flatMap(Double.init)
        else { return nil }
        return (x, width)
    }

    /// Table 6-1 as of 2 July: two paid intervals, a lapse, a third; the periods they make; each
    /// issue's marker with the rule's reason.
    @Test func table61_barsGapAndTicks() throws {
        let elements = try Self.draw("table-6-1", at: "2020-07-02T00:00:00Z")
        #expect(elements.first?.name == "svg")
        let intervals = elements.classed("interval", "paid")
        // The renewal starts two minutes before the first interval ends, as renewals do.
        #expect(intervals.map { $0.attributes["data-start"]! } == ["2020-02-20T12:00:00Z", "2020-03-20T11:58:00Z", "2020-06-17T12:00:00Z"])
        #expect(intervals.map { $0.attributes["data-end"]! } == ["2020-03-20T12:00:00Z", "2020-04-20T12:00:00Z", "2020-07-17T12:00:00Z"])
        let periods = elements.classed("period", "archive")
        #expect(periods.map { "\($0.attributes["data-start"]!) \($0.attributes["data-end"]!)" } == [
            "2020-02-20T12:00:00Z 2020-04-20T12:00:00Z", "2020-06-17T12:00:00Z 2020-07-17T12:00:00Z",
        ])
        let lapses = elements.classed("lapse")
        #expect(lapses.map { "\($0.attributes["data-start"]!) \($0.attributes["data-end"]!)" } == ["2020-04-20T12:00:00Z 2020-06-17T12:00:00Z"])
        // The lapse is the gap between the periods' bars, and time runs left to right.
        let first = try #require(Self.bar(after: periods[0], in: elements))
        let gap = try #require(Self.bar(after: lapses[0], in: elements))
        let second = try #require(Self.bar(after: periods[1], in: elements))
        #expect(abs(first.x + first.width - gap.x) < 0.11)
        #expect(abs(gap.x + gap.width - second.x) < 0.11)
        let issues = elements.filter { $0.classes.contains("issue") }
        let decisions = issues.map { "\($0.attributes["data-issue"]!) \($0.classes[1]) \($0.attributes["data-reason"]!)" }
        #expect(decisions == [
            "2020-02 readable unlockedAtPeriodStart", "2020-03 readable publishedDuringPeriod", "2020-04 readable publishedDuringPeriod",
            "2020-05 denied publishedDuringLapse", "2020-06 readable unlockedAtPeriodStart", "2020-07 readable publishedDuringPeriod",
        ])
        #expect(elements.classed("as-of").first?.attributes["data-at"] == "2020-07-02T00:00:00Z")
        #expect(elements.classed("refunded").isEmpty)
        #expect(elements.classed("legend").count == 1)
    }

    /// Streaming (Table 6-2): periods drawn as streaming, issues readable by the streaming rule.
    @Test func table62_streamingPeriods() throws {
        let elements = try Self.draw("table-6-2", at: "2020-07-02T00:00:00Z")
        #expect(elements.classed("period", "streaming").count == 2)
        #expect(elements.classed("period", "archive").isEmpty)
        #expect(elements.classed("issue", "readable").allSatisfy { $0.attributes["data-reason"] == "streaming" })
    }

    /// A refunded renewal is its own struck-through bar, not an interval; grace is marked as such.
    @Test func refundAndGrace_areDrawnApart() throws {
        let refund = try Self.draw("refund", at: "2020-07-02T00:00:00Z")
        let refunded = refund.classed("refunded")
        #expect(refunded.count == 1)
        #expect(refund.classed("interval").allSatisfy { $0.attributes["data-transaction"] != refunded[0].attributes["data-transaction"] })
        #expect(refunded[0].attributes["data-refunded"] == "2020-04-15T09:30:00Z")
        #expect(refund.classed("issue", "denied").map { "\($0.attributes["data-issue"]!) \($0.attributes["data-reason"]!)" } == [
            "2020-05 refunded", "2020-06 publishedDuringLapse", "2020-07 publishedDuringLapse",
        ])
        let grace = try Self.draw("grace", at: "2020-06-10T00:00:00Z")
        #expect(grace.classed("interval", "grace").count == 1)
        #expect(grace.classed("interval", "paid").map { $0.attributes["data-transaction"] } == ["5000001"])
    }

    /// --publication draws that publication even for a reader without a transaction for it.
    @Test func publicationOption_andUnknownPublication() throws {
        let single = try Self.draw("single-issue", at: "2020-07-02T00:00:00Z", extra: ["--publication", "the-monthly"])
        #expect(single.classed("publication").map { $0.attributes["data-publication"] } == ["the-monthly"])
        #expect(single.classed("issue", "readable").contains { $0.attributes["data-reason"] == "singlePurchase" })
        let run = try Tool.run([
            "timeline", "--catalog", "Catalog/the-monthly", "--receipt", "Catalog/the-monthly/receipts/table-6-1.json", "--publication", "nope",
            "--output", "/tmp/never-written.svg",
        ])
        #expect(run.status == 64)
        #expect(run.errors.hasPrefix("masthead: timeline: unknown publication 'nope'"))
        #expect(!FileManager.default.fileExists(atPath: "/tmp/never-written.svg"))
    }
}
