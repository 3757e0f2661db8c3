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

    @Test func thousands_groupsDigitsByThree() {
        #expect(Markup.thousands(0) == "0")
        #expect(Markup.thousands(999) == "999")
        #expect(Markup.thousands(85_849) == "85,849")
        #expect(Markup.thousands(1_000_000) == "1,000,000")
        #expect(Markup.thousands(-12_345) == "-12,345")
    }

    /// Widths come from the font's table: digits and capitals as DejaVu Sans draws them.
    @Test func textMetrics_widthsAndBoxes() {
        #expect(TextMetrics.width("0000", size: 10) == 25.44)
        #expect(TextMetrics.width("i", size: 10) < TextMetrics.width("M", size: 10))
        #expect(TextMetrics.width("Aa", size: 10, bold: true) > TextMetrics.width("Aa", size: 10))
        let box = TextMetrics.box("00", x: 100, y: 50, size: 10, anchor: "middle")
        #expect(box == TextMetrics.Box(minX: 100 - 6.36, minY: 42.4, maxX: 100 + 6.36, maxY: 52.4))
        #expect(box.isCrossed(x1: 100, y1: 0, x2: 100, y2: 100))
        #expect(!box.isCrossed(x1: 110, y1: 0, x2: 110, y2: 100))
        #expect(!box.isCrossed(x1: 100, y1: 0, x2: 100, y2: 42))
    }
}
