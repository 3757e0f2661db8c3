import Foundation
import Testing
import MastheadTestSupport

/// `masthead timeline`: the picture holds the right bars, gaps and ticks, in the right places.
struct TimelineCommandTests {
    /// The SVG text `timeline` writes for `receipts` (shipped receipt names, or paths) as of `at`.
    static func svg(_ receipts: [String], at: String, extra: [String] = []) throws -> String {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("timeline.svg")
        let files = receipts.flatMap { ["--receipt", $0.hasPrefix("/") ? $0 : "Catalog/the-monthly/receipts/\($0).json"] }
        let run = try Tool.run(["timeline", "--catalog", "Catalog/the-monthly"] + files + ["--at", at, "--output", output.path] + extra)
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output == "")
        return try String(contentsOf: output, encoding: .utf8)
    }

    static func draw(_ receipt: String, at: String, extra: [String] = []) throws -> [SVGElements.Element] {
        try SVGElements.read(svg([receipt], at: at, extra: extra))
    }

    /// The first `rect` after `element` (the bar inside a group), as (x, y, width).
    static func bar(after group: SVGElements.Element, in elements: [SVGElements.Element]) -> (x: Double, y: Double, width: Double)? {
        guard let index = elements.firstIndex(where: { $0.attributes == group.attributes && $0.name == group.name }),
            let rect = elements[(index + 1)...].first(where: { $0.name == "rect" }),
            let x = rect.number("x"), let y = rect.number("y"), let width = rect.number("width")
        else { return nil }
        return (x, y, width)
    }

    /// A receipt in a temporary folder: a monthly subscription from 20 November to 20 December
    /// 2020, so that the free December issue is also published during a period.
    static func decemberReceipt(in folder: URL) throws -> URL {
        let file = folder.appendingPathComponent("december.json")
        try Data(#"""
            {"status": 0, "environment": "Production", "latest_receipt_info": [{"transaction_id": "7000001", "product_id": "com.example.monthly",
             "purchase_date_ms": "1605873600000", "expires_date_ms": "1608465600000"}]}
            """#.utf8).write(to: file)
        return file
    }

    /// Table 6-1 as of 2 July: two paid intervals, a lapse, a third; the periods they make; every
    /// issue of the publication with the rule's reason.
    @Test func table61_barsGapAndEveryIssue() throws {
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
        // Every issue of the publication, not only those near the periods.
        let issues = elements.filter { $0.classes.contains("issue") }
        let decisions = issues.map { "\($0.attributes["data-issue"]!) \($0.classes[1]) \($0.attributes["data-reason"]!)" }
        #expect(decisions == [
            "2020-01 denied publishedBeforeSubscription", "2020-02 readable unlockedAtPeriodStart", "2020-03 readable publishedDuringPeriod",
            "2020-04 readable publishedDuringPeriod", "2020-05 denied publishedDuringLapse", "2020-06 readable unlockedAtPeriodStart",
            "2020-07 readable publishedDuringPeriod", "2020-08 unpublished notYetPublished", "2020-09 unpublished notYetPublished",
            "2020-10 unpublished notYetPublished", "2020-11 unpublished notYetPublished", "2020-12 unpublished notYetPublished",
        ])
        #expect(elements.classed("issue-label").map(\.text) == (1...12).map { String(format: "2020-%02d", $0) })
        #expect(!elements.classed("title").contains { $0.text.contains("outside the span") })
        #expect(elements.classed("as-of").first?.attributes["data-at"] == "2020-07-02T00:00:00Z")
        #expect(elements.classed("refunded").isEmpty)
        #expect(elements.classed("legend").count == 1)
    }

    /// --from and --to limit the time drawn; the title counts the issues left out.
    @Test func fromAndTo_limitTheSpan() throws {
        let elements = try Self.draw("table-6-1", at: "2020-07-02T00:00:00Z", extra: ["--from", "2020-02-01T00:00:00Z", "--to", "2020-08-01T00:00:00Z"])
        #expect(elements.classed("issue").map { $0.attributes["data-issue"]! } == (2...8).map { String(format: "2020-%02d", $0) })
        #expect(elements.classed("title").first?.text.hasSuffix("(5 outside the span drawn)") == true)
        let run = try Tool.run([
            "timeline", "--catalog", "Catalog/the-monthly", "--receipt", "Catalog/the-monthly/receipts/table-6-1.json", "--output", "/tmp/never.svg",
            "--from", "2020-08-01T00:00:00Z", "--to", "2020-02-01T00:00:00Z",
        ])
        #expect(run.status == 64)
        #expect(run.errors == "masthead: timeline: --from must be before --to\n")
    }

    /// What a reader would check by eye, on every shipped story: every label inside the canvas,
    /// none over another, no tick or as-of line through a label, every bar label whole in its bar.
    @Test(arguments: [
        (["table-6-1"], "2020-07-02T00:00:00Z"), (["table-6-2"], "2020-07-02T00:00:00Z"), (["table-6-2"], "2020-04-25T00:00:00Z"),
        (["refund"], "2020-07-02T00:00:00Z"), (["upgrade"], "2020-07-02T00:00:00Z"), (["grace"], "2020-06-10T00:00:00Z"),
        (["grace"], "2020-07-02T00:00:00Z"), (["stacked-passes"], "2020-12-31T00:00:00Z"), (["single-issue"], "2020-07-02T00:00:00Z"),
        (["table-6-1", "table-6-2", "upgrade"], "2020-07-02T00:00:00Z"), (["table-6-1"], "2020-12-31T23:00:00Z"),
    ])
    func layout_labelsInsideApartAndClearOfLines(receipts: [String], at: String) throws {
        let elements = try SVGElements.read(Self.svg(receipts, at: at))
        let problems = SVGLayout.problems(elements)
        #expect(problems.isEmpty, "\(receipts) at \(at):\n\(problems.joined(separator: "\n"))")
    }

    /// The layout check fails a picture that has what it looks for.
    @Test func layoutCheck_findsOverlapsCrossingsAndCutLabels() throws {
        let elements = try SVGElements.read("""
            <svg xmlns="http://www.w3.org/2000/svg" width="200" height="100">
            <text x="10" y="20" font-size="10">first label</text><text x="30" y="22" font-size="10">second</text>
            <line x1="15" y1="0" x2="15" y2="100"/><text x="190" y="90" font-size="10">cut off</text>
            <g><rect x="100" y="40" width="20" height="16"/><text x="104" y="52" font-size="10" class="bar-label">#0 archive</text></g>
            </svg>
            """)
        let problems = SVGLayout.problems(elements)
        #expect(problems.contains { $0.hasPrefix("'first label' overlaps 'second'") })
        #expect(problems.contains { $0.contains("runs through 'first label'") })
        #expect(problems.contains { $0.hasPrefix("'cut off' lies outside") })
        #expect(problems.contains { $0.hasPrefix("'#0 archive' does not fit in its bar") })
    }

    /// Streaming (Table 6-2): periods drawn as streaming, issues readable by the streaming rule.
    @Test func table62_streamingPeriods() throws {
        let elements = try Self.draw("table-6-2", at: "2020-07-02T00:00:00Z")
        #expect(elements.classed("period", "streaming").count == 2)
        #expect(elements.classed("period", "archive").isEmpty)
        #expect(elements.classed("issue", "readable").allSatisfy { $0.attributes["data-reason"] == "streaming" })
    }

    /// Several products: each product's intervals in a row named by its id, archive and streaming
    /// periods in rows of their own with their lapses, an arrow at the upgrade.
    @Test func severalProducts_rowsOfTheirOwn_andTheUpgrade() throws {
        let elements = try SVGElements.read(Self.svg(["table-6-1", "table-6-2", "upgrade"], at: "2020-07-02T00:00:00Z"))
        let intervals = elements.classed("interval")
        var rows: [String: Set<Double>] = [:]
        for interval in intervals {
            let bar = try #require(Self.bar(after: interval, in: elements))
            rows[interval.attributes["data-product"]!, default: []].insert(bar.y)
        }
        #expect(rows.keys.sorted() == ["com.example.monthly", "com.example.monthly.premium", "com.example.reader"])
        let monthly = try #require(rows["com.example.monthly"])
        let premium = try #require(rows["com.example.monthly.premium"])
        let reader = try #require(rows["com.example.reader"])
        #expect(monthly.isDisjoint(with: premium) && monthly.isDisjoint(with: reader) && premium.isDisjoint(with: reader))
        let rowLabels = elements.classed("row").map(\.text)
        // In the order of each product's first interval.
        #expect(rowLabels == ["Issues", "com.example.monthly", "com.example.reader", "com.example.monthly.premium", "Archive periods", "Streaming periods"])
        func heights(_ classes: String...) throws -> Set<Double> {
            Set(try elements.filter { element in classes.allSatisfy(element.classes.contains) }.map { try #require(Self.bar(after: $0, in: elements)).y })
        }
        let archive = try heights("period", "archive")
        let streaming = try heights("period", "streaming")
        #expect(archive.count == 1 && streaming.count == 1 && archive != streaming)
        for lapse in elements.classed("lapse") {
            let y = try #require(Self.bar(after: lapse, in: elements)).y
            #expect((lapse.attributes["data-access"] == "archive" ? archive : streaming).contains(y))
        }
        let upgrade = try #require(elements.classed("upgrade").first)
        #expect(upgrade.attributes["data-from"] == "com.example.monthly" && upgrade.attributes["data-to"] == "com.example.monthly.premium")
        #expect(upgrade.attributes["data-at"] == "2020-03-15T12:00:00Z")
        #expect(elements.classed("legend-label").map(\.text).contains("upgrade"))
    }

    /// A refunded renewal is its own struck-through bar, not an interval.
    @Test func refund_isDrawnApart() throws {
        let refund = try Self.draw("refund", at: "2020-07-02T00:00:00Z")
        let refunded = refund.classed("refunded")
        // Required: the checks below read the one refunded element.
        try #require(refunded.count == 1)
        #expect(refund.classed("interval").allSatisfy { $0.attributes["data-transaction"] != refunded[0].attributes["data-transaction"] })
        #expect(refunded[0].attributes["data-refunded"] == "2020-04-15T09:30:00Z")
        #expect(refund.classed("issue", "denied").map { "\($0.attributes["data-issue"]!) \($0.attributes["data-reason"]!)" }.filter { !$0.hasSuffix("notYetPublished") } == [
            "2020-01 publishedBeforeSubscription", "2020-02 publishedBeforeSubscription", "2020-05 refunded", "2020-06 publishedDuringLapse",
            "2020-07 publishedDuringLapse",
        ])
    }

    /// Billing grace and billing retry come from the renewal info: drawn inside the grace period
    /// and after it, with their ends among the dates of the axis.
    @Test func billingGraceAndRetry_areDrawn_withTheirEnds() throws {
        for at in ["2020-06-10T00:00:00Z", "2020-07-02T00:00:00Z"] {
            let grace = try Self.draw("grace", at: at)
            #expect(grace.classed("interval", "grace").map { "\($0.attributes["data-start"]!) \($0.attributes["data-end"]!)" } == [
                "2020-06-01T12:00:00Z 2020-06-17T12:00:00Z",
            ], "\(at)")
            #expect(grace.classed("billing-retry").map { "\($0.attributes["data-start"]!) \($0.attributes["data-end"]!)" } == [
                "2020-06-01T12:00:00Z 2020-07-31T12:00:00Z",
            ], "\(at)")
            #expect(grace.classed("interval", "paid").map { $0.attributes["data-transaction"] } == ["5000001"])
            // In grace the period runs to the grace end; after it, to the expiry.
            let dates = at.hasPrefix("2020-06") ? ["1 May", "17 Jun", "31 Jul"] : ["1 May", "1 Jun", "17 Jun", "31 Jul"]
            #expect(grace.classed("boundary-label").map(\.text) == dates, "\(at)")
        }
        // Before the subscription expired there is no billing trouble to draw.
        let before = try Self.draw("grace", at: "2020-05-20T00:00:00Z")
        #expect(before.classed("billing-retry").isEmpty && before.classed("interval", "grace").isEmpty)
    }

    /// The heading names the reader: --user, else the user_id of an audit input line, else the
    /// App Store subscription; never the file.
    @Test func heading_namesTheReader() throws {
        let given = try Self.draw("table-6-1", at: "2020-07-02T00:00:00Z", extra: ["--user", "alice"])
        #expect(given.classed("heading").first?.text == "alice — as of 2020-07-02 00:00 UTC, production")
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let line = folder.appendingPathComponent("line.json")
        try Data(try AuditCommandTests.receiptLine("user-42", "table-6-1").utf8).write(to: line)
        let fromFile = try SVGElements.read(Self.svg([line.path], at: "2020-07-02T00:00:00Z"))
        #expect(fromFile.classed("heading").first?.text.hasPrefix("user-42 — as of") == true)
        #expect(fromFile.classed("interval", "paid").count == 3)
        let unnamed = try Self.draw("table-6-1", at: "2020-07-02T00:00:00Z")
        #expect(unnamed.classed("heading").first?.text.hasPrefix("Reader of original transaction 1000001 — as of") == true)
        #expect(!unnamed.classed("heading").first!.text.contains(".json"))
    }

    /// The legend lists what the picture uses, and nothing else.
    @Test func legend_listsOnlyWhatAppears() throws {
        let elements = try Self.draw("table-6-1", at: "2020-07-02T00:00:00Z")
        #expect(elements.classed("legend-label").map(\.text) == [
            "paid", "archive period", "lapse", "as-of instant", "published in a period", "unlocked at a period's start", "not readable",
            "not yet published",
        ])
    }

    /// An issue published after the as-of instant is not drawn as one the reader is locked out
    /// of: no cross, a mark of its own in the legend.
    @Test func unpublishedIssues_areNotDrawnAsLockedOut() throws {
        let elements = try Self.draw("table-6-1", at: "2020-07-02T00:00:00Z")
        let unpublished = elements.indices.filter { elements[$0].classes.starts(with: ["issue", "unpublished"]) }
        #expect(unpublished.map { elements[$0].attributes["data-issue"]! } == ["2020-08", "2020-09", "2020-10", "2020-11", "2020-12"])
        for index in unpublished { #expect(elements.inside(index).filter { $0.name == "path" }.isEmpty, "a cross on \(elements[index].attributes)") }
        let denied = elements.indices.filter { elements[$0].classes.starts(with: ["issue", "denied"]) }
        #expect(denied.map { elements[$0].attributes["data-issue"]! } == ["2020-01", "2020-05"])
        for index in denied { #expect(elements.inside(index).filter { $0.name == "path" }.count == 1) }
    }

    /// A lapse still running at the as-of instant is drawn up to it, not into the future.
    @Test func openLapse_endsAtTheAsOfInstant() throws {
        let elements = try Self.draw("grace", at: "2020-07-02T00:00:00Z")
        let lapse = try #require(elements.classed("lapse").first)
        #expect(lapse.attributes["data-end"] == "open")
        let bar = try #require(Self.bar(after: lapse, in: elements))
        let asOf = try #require(elements.firstIndex { $0.classes.contains("as-of") })
        let line = try #require(elements.inside(asOf).first { $0.name == "line" }?.number("x1"))
        #expect(abs(bar.x + bar.width - line) < 0.11, "the lapse ends at \(bar.x + bar.width), the as-of line is at \(line)")
    }

    /// A bar too short for its name is named just after it, when nothing is there (the
    /// upgraded interval here, the one-month pass of the stacked passes).
    @Test(arguments: [("upgrade", "upgraded"), ("stacked-passes", "nonRenewing")])
    func shortBar_isNamedJustAfterIt(receipt: String, kind: String) throws {
        let elements = try Self.draw(receipt, at: "2020-07-02T00:00:00Z")
        let short = try #require(elements.firstIndex { $0.classes.starts(with: ["interval", kind]) })
        let bar = try #require(Self.bar(after: elements[short], in: elements))
        let label = try #require(elements.inside(short).first { $0.name == "text" })
        #expect(label.text == kind)
        let x = try #require(label.number("x"))
        #expect(x >= bar.x + bar.width && x <= bar.x + bar.width + 4)
    }

    /// The billing grace bar is named (by its short name where the long one does not fit), and
    /// the lane holding the billing retry is named at the left like every row.
    @Test func billingGraceAndTheRetryLane_areLabelled() throws {
        let elements = try Self.draw("grace", at: "2020-07-02T00:00:00Z")
        let grace = try #require(elements.firstIndex { $0.classes.starts(with: ["interval", "grace"]) })
        let bar = try #require(Self.bar(after: elements[grace], in: elements))
        let label = try #require(elements.inside(grace).first { $0.name == "text" })
        #expect(["billing grace", "grace"].contains(label.text))
        let x = try #require(label.number("x"))
        #expect(x >= bar.x)
        #expect(elements.classed("row").map(\.text) == ["Issues", "com.example.monthly", "billing retry", "Archive periods"])
        let retry = try #require(elements.classed("billing-retry").first)
        let retryBar = try #require(Self.bar(after: retry, in: elements))
        let retryRow = try #require(elements.classed("row").first { $0.text == "billing retry" }?.number("y"))
        #expect(retryBar.y < retryRow && retryRow < retryBar.y + 16)
    }

    /// The title says what the reader has in words: a buyer of one issue has no subscription and
    /// one issue bought on its own, not "none"; the as-of label names its zone.
    @Test func title_saysTheStateInWords_andTheAsOfLabelItsZone() throws {
        let single = try Self.draw("single-issue", at: "2020-07-02T00:00:00Z")
        let title = try #require(single.classed("title").first?.text)
        #expect(title == "The Monthly (the-monthly) — no subscription, 1 issue bought on its own, 1 of 12 issues readable")
        #expect(single.classed("as-of-label").first?.text == "as of 2020-07-02 00:00 UTC")
        let grace = try Self.draw("grace", at: "2020-06-10T00:00:00Z")
        #expect(grace.classed("title").first?.text.contains("— in a billing grace period, ") == true)
    }

    /// Every period boundary's date is written on the axis.
    @Test func boundaries_everyPeriodBoundaryIsDated() throws {
        let elements = try Self.draw("table-6-1", at: "2020-07-02T00:00:00Z")
        #expect(elements.classed("boundary").map { $0.attributes["data-at"]! } == [
            "2020-02-20T12:00:00Z", "2020-04-20T12:00:00Z", "2020-06-17T12:00:00Z", "2020-07-17T12:00:00Z",
        ])
        #expect(elements.classed("boundary-label").map(\.text) == ["20 Feb", "20 Apr", "17 Jun", "17 Jul"])
    }

    /// A free issue that is readable for another reason too shows a marker for each.
    @Test func freeIssue_readableForAnotherReason_showsBoth() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let elements = try SVGElements.read(Self.svg([try Self.decemberReceipt(in: folder).path], at: "2020-12-10T00:00:00Z"))
        let index = try #require(elements.firstIndex { $0.attributes["data-issue"] == "2020-12" })
        #expect(elements[index].attributes["data-reason"] == "publishedDuringPeriod free")
        #expect(elements.inside(index).classed("mark").map(\.text) == ["P", "F"])
        #expect(SVGLayout.problems(elements).isEmpty)
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
