import Masthead
@testable import MastheadReports
import Testing

/// The small pieces the pictures are made of.
struct MarkupTests {
    @Test func escape_coversMarkupCharacters() {
        #expect(Markup.escape(#"<a href="x">Tom & Jerry's</a>"#) == "&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&#39;s&lt;/a&gt;")
        #expect(Markup.escape("plain — text") == "plain — text")
    }

    @Test func number_oneDecimalAtMost() {
        #expect(Markup.number(12) == "12")
        #expect(Markup.number(12.04) == "12")
        #expect(Markup.number(12.06) == "12.1")
        #expect(Markup.number(-3.25) == "-3.3")
        #expect(Markup.number(-0.5) == "-0.5")
    }

    @Test func element_escapesAttributesAndContent() {
        var markup = Markup()
        markup.element("text", [("x", 1.5), ("class", "a\"b")], content: "1 < 2", title: "why & how")
        #expect(markup.text == #"<text x="1.5" class="a&quot;b"><title>why &amp; how</title>1 &lt; 2</text>"#)
        var empty = Markup()
        empty.element("rect", [("width", 3)])
        #expect(empty.text == #"<rect width="3"/>"#)
    }

    static func instant(_ day: Int64) -> Instant { Instant(milliseconds: day * 86_400_000) }

    /// Overlapping spans take separate lanes; touching ones, or ones overlapping by less than two
    /// pixels, share one.
    @Test func lanes_separateOnlyVisibleOverlaps() {
        let scale = TimeScale(lower: Self.instant(0), upper: Self.instant(940))
        let spans = [
            (Self.instant(0), Self.instant(30)), (Self.instant(30), Self.instant(60)), (Self.instant(40), Self.instant(50)),
            (Self.instant(60).adding(milliseconds: -3_600_000), Self.instant(90)), (Self.instant(100), Self.instant(120)),
        ]
        #expect(Panel.lanes(spans, scale: scale) == [0, 0, 1, 0, 0])
    }

    @Test func niceStep_isOneTwoOrFiveTimesAPowerOfTen() {
        #expect(StatusChart.niceStep(0.3) == 1)
        #expect(StatusChart.niceStep(3) == 5)
        #expect(StatusChart.niceStep(12_500) == 20_000)
        #expect(StatusChart.niceStep(50_000) == 50_000)
    }

    /// Input text (user ids, reasons) is escaped: a hostile user id cannot add markup to the report.
    @Test func report_escapesInputText() {
        let at = Instant(milliseconds: 1_593_648_000_000)
        let page = AuditReportPage(AuditReportPage.Content(
            inputs: [("receipts", "a&b.jsonl")], totals: [("users", "1")], instants: [at], states: [[.active: 1]],
            products: [("<b>prod</b>", [(1, 1)])], discrepancies: [(1, 0)],
            listed: [AuditReportPage.Discrepancy(userId: "<script>alert(1)</script>", publication: "p", at: at, kind: "overGranted", issue: "i\"", reason: "r")]))
        #expect(!page.html.contains("<script"))
        #expect(!page.html.contains("<b>prod"))
        #expect(page.html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(page.html.contains("a&amp;b.jsonl"))
    }
}
