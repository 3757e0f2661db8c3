import Foundation
import Masthead
@testable import MastheadReports
import Testing

/// The audit report: what it says, and colours a reader can tell apart.
struct AuditReportPageTests {
    static let march = Instant(milliseconds: 1_617_235_199_000)
    static let june = Instant(milliseconds: 1_625_097_599_000)

    static func content(listed user: String = "user-1", product: String = "com.example.reader") -> AuditReportPage.Content {
        AuditReportPage.Content(
            inputs: [("receipts", "a&b.jsonl")], generated: Instant(milliseconds: 1_700_000_000_000), version: "9.9.9",
            totals: [("users", 100_000)], instants: [march, june],
            states: [[.active: 42_927, .gracePeriod: 486, .none: 1_649], [.active: 34_243, .billingRetry: 741]],
            products: [(product, [(42_927, 50_000), (34_243, 50_000)])], productRule: "the rule",
            reconciliation: AuditReportPage.Reconciliation(
                counts: [
                    (.overGranted, [1_200, 2_500], [(product, [1_000, 2_000]), ("com.example.monthly", [200, 500])]),
                    (.underGranted, [0, 0], []), (.heldAfterEntitlementEnded, [15_259, 26_545], [(product, [15_259, 26_545])]),
                ],
                listed: [
                    AuditReportPage.ListedGroup(
                        at: june, kind: .overGranted, product: product, total: 2_000,
                        lines: [AuditReportPage.ListedLine(userId: user, publication: "p", issues: [("2020-05", "served 2021-05-03 12:00: streaming access is not active")])])
                ]))
    }

    /// Counts per instant side by side, never added together; thousands separated; when, with
    /// what and on what the audit ran.
    @Test func report_countsPerInstant_neverSummed() {
        let html = AuditReportPage(Self.content()).html
        #expect(html.contains("Generated 2023-11-14T22:13:20Z by masthead 9.9.9."))
        #expect(html.contains("<tr><td>masthead</td><td>9.9.9</td></tr>"))
        #expect(html.contains("<tr><td>users</td><td>100,000</td></tr>"))
        #expect(html.contains("<th>as of 2021-03-31T23:59:59Z</th><th>as of 2021-06-30T23:59:59Z</th>"))
        #expect(html.contains("<tr><td>active</td><td>42,927</td><td>34,243</td></tr>"))
        #expect(html.contains(#"<tr class="kind overGranted"><td>over-granted</td><td>1,200</td><td>2,500</td></tr>"#))
        #expect(html.contains(#"<tr class="product overGranted"><td>com.example.reader</td><td>1,000</td><td>2,000</td></tr>"#))
        #expect(html.contains(#"<tr class="kind heldAfterEntitlementEnded"><td>held after entitlement ended</td><td>15,259</td><td>26,545</td></tr>"#))
        // Nowhere added across the instants.
        for sum in ["3,700", "41,804", "77,170"] { #expect(!html.contains(sum), "\(sum)") }
        #expect(html.contains("As of 2021-06-30T23:59:59Z: over-granted, com.example.reader — 2,000 issues"))
        #expect(html.contains("2020-05: served 2021-05-03 12:00: streaming access is not active"))
    }

    /// The page says what its words mean (every status, and the product names that are not
    /// products) and in which zone its times are.
    @Test func report_explainsStatusesProductNamesAndTheTimeZone() {
        let html = AuditReportPage(Self.content()).html
        #expect(html.contains("All times are UTC."))
        for state in SubscriptionState.allCases { #expect(html.contains("<dt>\(state.rawValue)</dt><dd>"), "\(state)") }
        #expect(html.contains("<dt>(single issues)</dt><dd>"))
        #expect(html.contains("<dt>(none)</dt><dd>"))
    }

    /// Grants the audit could not place are listed, escaped; without any, no such section.
    @Test func report_listsUnplacedGrants() {
        var content = Self.content()
        content.unplacedGrants = ["g.csv:6: publication the-monthly has no issue <1999-01>"]
        let html = AuditReportPage(content).html
        #expect(html.contains("<h3>Grants the audit could not place</h3>"))
        #expect(html.contains("<li>g.csv:6: publication the-monthly has no issue &lt;1999-01&gt;</li>"))
        #expect(!AuditReportPage(Self.content()).html.contains("could not place"))
    }

    /// Input text (user ids, reasons) is escaped: a hostile user id cannot add markup to the report.
    @Test func report_escapesInputText() {
        let page = AuditReportPage(Self.content(listed: "<script>alert(1)</script>", product: "<b>prod</b>"))
        #expect(!page.html.contains("<script"))
        #expect(!page.html.contains("<b>prod"))
        #expect(page.html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(page.html.contains("a&amp;b.jsonl"))
    }

    /// Every state's colour stands apart from every other and from the white page (CIE76 ΔE of
    /// at least 25).
    @Test func statusColours_distinctAndVisibleOnWhite() {
        let colours = SubscriptionState.allCases.map { ($0, Self.lab(StatusChart.colour($0))) }
        let white = Self.lab("#FFFFFF")
        for (state, colour) in colours {
            #expect(Self.distance(colour, white) >= 25, "\(state) against white: \(Self.distance(colour, white))")
        }
        for (index, (state, colour)) in colours.enumerated() {
            for (other, second) in colours[(index + 1)...] {
                #expect(Self.distance(colour, second) >= 25, "\(state) against \(other): \(Self.distance(colour, second))")
            }
        }
    }

    /// The chart's bars hold the counts, and each segment is named with its count.
    @Test func chart_segmentsNamedWithTheirCounts() {
        let chart = StatusChart(instants: [Self.march, Self.june], states: Self.content().states)
        #expect(chart.svg.contains(">active 42,927</text>"))
        #expect(chart.svg.contains(">billingRetry 741</text>"))
        #expect(chart.svg.contains(">60,000</text>"))
        #expect(chart.width >= 600 && chart.height >= 400)
    }

    static func lab(_ hex: String) -> (l: Double, a: Double, b: Double) {
        let value = Int(hex.dropFirst(), radix: 16)!
        func linear(_ channel: Int) -> Double {
            let c = Double(channel) / 255
            return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
        }
        let (r, g, b) = (linear(value >> 16 & 0xFF), linear(value >> 8 & 0xFF), linear(value & 0xFF))
        let x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
        let y = 0.2126 * r + 0.7152 * g + 0.0722 * b
        let z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883
        func f(_ t: Double) -> Double { t > 0.008856 ? cbrt(t) : 7.787 * t + 16.0 / 116 }
        return (116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z)))
    }

    static func distance(_ first: (l: Double, a: Double, b: Double), _ second: (l: Double, a: Double, b: Double)) -> Double {
        ((first.l - second.l) * (first.l - second.l) + (first.a - second.a) * (first.a - second.a) + (first.b - second.b) * (first.b - second.b)).squareRoot()
    }
}
