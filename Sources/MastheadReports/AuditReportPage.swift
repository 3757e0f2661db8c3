public import Masthead

/// One self-contained HTML page about an audit: the summary, a chart of statuses per as-of
/// instant (inline SVG), the counts per product, and the discrepancy table. No script, no
/// stylesheet or font fetched from anywhere.
public struct AuditReportPage {
    /// One over- or under-granted issue.
    public struct Discrepancy: Sendable {
        public var userId: String
        public var publication: String
        public var at: Instant
        /// `overGranted` or `underGranted`.
        public var kind: String
        public var issue: String
        public var reason: String

        public init(userId: String, publication: String, at: Instant, kind: String, issue: String, reason: String) {
            self.userId = userId
            self.publication = publication
            self.at = at
            self.kind = kind
            self.issue = issue
            self.reason = reason
        }
    }

    /// What the page shows.
    public struct Content: Sendable {
        /// Where the audit's inputs came from and how it ran, as (label, value) rows.
        public var inputs: [(label: String, value: String)]
        /// Counts of the whole audit, as (label, value) rows.
        public var totals: [(label: String, value: String)]
        /// The as-of instants, in order.
        public var instants: [Instant]
        /// Per instant, the (user, publication) lines in each state.
        public var states: [[SubscriptionState: Int]]
        /// Per product: per instant, how many lines are entitled and how many there are.
        public var products: [(product: String, counts: [(entitled: Int, lines: Int)])]
        /// Per instant, the over- and under-granted issues; nil when no grants were reconciled.
        public var discrepancies: [(over: Int, under: Int)]?
        /// The first discrepancies, in input order.
        public var listed: [Discrepancy]

        public init(
            inputs: [(label: String, value: String)], totals: [(label: String, value: String)], instants: [Instant],
            states: [[SubscriptionState: Int]], products: [(product: String, counts: [(entitled: Int, lines: Int)])],
            discrepancies: [(over: Int, under: Int)]?, listed: [Discrepancy]
        ) {
            self.inputs = inputs
            self.totals = totals
            self.instants = instants
            self.states = states
            self.products = products
            self.discrepancies = discrepancies
            self.listed = listed
        }
    }

    /// The HTML document.
    public let html: String

    public init(_ content: Content) {
        var page = Markup()
        page.raw("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Entitlement audit</title><style>\(Self.css)</style></head><body>\n")
        page.element("h1", [], content: "Entitlement audit")
        page.element("h2", [], content: "Inputs")
        Self.table(rows: content.inputs.map { [$0.label, $0.value] }, header: nil, into: &page, tableClass: "pairs")
        page.element("h2", [], content: "Totals")
        Self.table(rows: content.totals.map { [$0.label, $0.value] }, header: nil, into: &page, tableClass: "pairs")
        page.element("h2", [], content: "Status per as-of instant")
        page.raw(StatusChart(instants: content.instants, states: content.states).svg)
        var stateRows = SubscriptionState.allCases.map { state in [state.rawValue] + content.states.map { String($0[state] ?? 0) } }
        stateRows.append(["total"] + content.states.map { String($0.values.reduce(0, +)) })
        Self.table(rows: stateRows, header: ["status"] + content.instants.map(\.description), into: &page, tableClass: "counts")
        page.element("h2", [], content: "Per product (entitled / lines)")
        page.element("p", [("class", "note")], content: "A (user, publication) line counts under its latest auto-renewable product, else the pass or free product that covers (or last covered) the instant; entitled means active or in a billing grace period.")
        Self.table(
            rows: content.products.map { [$0.product] + $0.counts.map { "\($0.entitled) / \($0.lines)" } },
            header: ["product"] + content.instants.map(\.description), into: &page, tableClass: "counts")
        page.element("h2", [], content: "Discrepancies")
        if let counts = content.discrepancies {
            let over = counts.map(\.over).reduce(0, +)
            let under = counts.map(\.under).reduce(0, +)
            page.element("p", [], content: "Over-granted: served but not entitled as of the instant (a revenue leak). Under-granted: entitled but never served by then (a reader who paid and cannot read).")
            Self.table(
                rows: [["over-granted"] + counts.map { String($0.over) }, ["under-granted"] + counts.map { String($0.under) }],
                header: ["discrepancies"] + content.instants.map(\.description), into: &page, tableClass: "counts")
            if content.listed.count < over + under {
                page.element("p", [("class", "note")], content: "The first \(content.listed.count) of \(over + under) are listed; the audit output holds them all.")
            }
            Self.table(
                rows: content.listed.map { [$0.userId, $0.publication, $0.at.description, $0.kind, $0.issue, $0.reason] },
                header: ["user", "publication", "as of", "kind", "issue", "reason"], into: &page, tableClass: "discrepancies",
                rowClass: { $0[3] })
        } else {
            page.element("p", [("class", "note")], content: "No grants were given (--grants FILE), so nothing was reconciled.")
        }
        page.raw("</body></html>\n")
        html = page.text
    }

    private static func table(
        rows: [[String]], header: [String]?, into page: inout Markup, tableClass: String, rowClass: (([String]) -> String)? = nil
    ) {
        page.open("table", [("class", tableClass)])
        if let header {
            page.open("thead")
            page.open("tr")
            for cell in header { page.element("th", [], content: cell) }
            page.close("tr")
            page.close("thead")
        }
        page.open("tbody")
        for row in rows {
            page.open("tr", rowClass.map { [("class", $0(row))] } ?? [])
            for cell in row { page.element("td", [], content: cell) }
            page.close("tr")
        }
        page.close("tbody")
        page.close("table")
        page.raw("\n")
    }

    private static let css = """
        body{font-family:DejaVu Sans,Helvetica,Arial,sans-serif;margin:24px 32px;color:#222;max-width:1200px}\
        h1{font-size:22px}h2{font-size:17px;margin-top:28px;border-bottom:1px solid #ddd;padding-bottom:4px}\
        table{border-collapse:collapse;font-size:13px;margin:8px 0}td,th{border:1px solid #ddd;padding:4px 8px;text-align:left}\
        th{background:#f3f5f8}table.counts td:not(:first-child){text-align:right;font-variant-numeric:tabular-nums}\
        table.pairs td:first-child{color:#555}tr.overGranted td:nth-child(4){color:#b03030;font-weight:bold}\
        tr.underGranted td:nth-child(4){color:#1f5fa8;font-weight:bold}.note{color:#666;font-size:12px}
        """
}

/// A stacked bar per as-of instant: how many (user, publication) lines are in each state.
struct StatusChart {
    let svg: String

    static func colour(_ state: SubscriptionState) -> String {
        switch state {
        case .active: "#2a9d3f"
        case .gracePeriod: "#e0a100"
        case .billingRetry: "#f28e2b"
        case .expired: "#b0b0b0"
        case .none: "#e4e4e4"
        }
    }

    init(instants: [Instant], states: [[SubscriptionState: Int]]) {
        let barWidth = 70.0
        let gap = 60.0
        let left = 70.0
        let top = 20.0
        let plotHeight = 220.0
        let legendWidth = 170.0
        let width = left + Double(instants.count) * (barWidth + gap) + legendWidth
        let height = top + plotHeight + 60
        let largest = max(1, states.map { $0.values.reduce(0, +) }.max() ?? 1)
        let step = Self.niceStep(Double(largest) / 4)
        let axisMax = (Double(largest) / step).rounded(.up) * step
        var chart = Markup()
        chart.open("svg", [
            ("xmlns", "http://www.w3.org/2000/svg"), ("class", "status-chart"), ("width", width), ("height", height),
            ("viewBox", "0 0 \(Markup.number(width)) \(Markup.number(height))"), ("font-family", "DejaVu Sans, Helvetica, Arial, sans-serif"), ("font-size", "11"),
        ])
        func y(_ value: Double) -> Double { top + plotHeight - value / axisMax * plotHeight }
        var value = 0.0
        while value <= axisMax {
            chart.element("line", [("x1", left - 4), ("y1", y(value)), ("x2", width - legendWidth), ("y2", y(value)), ("stroke", "#e6e6e6")])
            chart.element("text", [("x", left - 8), ("y", y(value) + 4), ("text-anchor", "end"), ("fill", "#555")], content: String(Int(value)))
            value += step
        }
        for (index, instant) in instants.enumerated() {
            let x = left + gap / 2 + Double(index) * (barWidth + gap)
            var base = 0.0
            chart.open("g", [("class", "bar"), ("data-at", instant.description)])
            for state in SubscriptionState.allCases {
                let count = states[index][state] ?? 0
                guard count > 0 else { continue }
                chart.element("rect", [
                    ("x", x), ("y", y(base + Double(count))), ("width", barWidth), ("height", Double(count) / axisMax * plotHeight),
                    ("fill", Self.colour(state)), ("data-state", state.rawValue), ("data-count", count),
                ], title: "\(state.rawValue): \(count)")
                base += Double(count)
            }
            chart.close("g")
            let day = CivilTime(instant)
            chart.element("text", [("x", x + barWidth / 2), ("y", top + plotHeight + 16), ("text-anchor", "middle"), ("fill", "#333")],
                          content: String(instant.description.prefix(10)))
            if day.hour != 0 || day.minute != 0 || day.second != 0 {
                chart.element("text", [("x", x + barWidth / 2), ("y", top + plotHeight + 30), ("text-anchor", "middle"), ("fill", "#777")],
                              content: String(instant.description.dropFirst(11)))
            }
        }
        let legendX = width - legendWidth + 20
        for (index, state) in SubscriptionState.allCases.enumerated() {
            let rowY = top + Double(index) * 20
            chart.element("rect", [("x", legendX), ("y", rowY), ("width", 14.0), ("height", 14.0), ("fill", Self.colour(state))])
            chart.element("text", [("x", legendX + 20), ("y", rowY + 11), ("fill", "#333")], content: state.rawValue)
        }
        chart.close("svg")
        svg = chart.text + "\n"
    }

    /// 1, 2 or 5 times a power of ten, at least `value`.
    static func niceStep(_ value: Double) -> Double {
        var power = 1.0
        while power * 10 <= value { power *= 10 }
        for factor in [1.0, 2, 5, 10] where power * factor >= value { return power * factor }
        return power * 10
    }
}
