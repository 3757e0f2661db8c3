public import Masthead

/// One reader's entitlements drawn as an SVG picture, after seed 000's Figure 6-1: per
/// publication a time axis, each interval as a bar (trial, grace, refunded and the other kinds
/// drawn differently), the periods they merge into with lapses between them, and each issue as a
/// tick whose marker says whether it is readable and why.
///
/// Every drawn element carries a `class` (`interval paid`, `period archive`, `lapse`,
/// `issue readable`…) and `data-` attributes (instants, ids, reasons) so that the picture can be
/// checked by a program, and a `<title>` that a browser shows on hover.
public struct TimelineChart {
    /// The picture's width in pixels.
    public static let width = 1100.0
    static let plotLeft = 120.0
    static let plotRight = width - 40
    static let laneHeight = 24.0
    static let barHeight = 16.0

    /// The SVG document.
    public let svg: String

    /// Draws `entitlements` (one panel each, in order) for the reader named `reader`.
    public init(reader: String?, entitlements: [PublicationEntitlement]) {
        var body = Markup()
        var y = 16.0
        let heading = (reader.map { "Reader \($0)" } ?? "Reader")
            + (entitlements.first.map { ", as of \(CivilTime.readable($0.at)) UTC, \($0.environment.rawValue)" } ?? "")
        body.element("text", [("x", 16.0), ("y", y + 14), ("class", "heading")], content: heading)
        y += 34
        if entitlements.isEmpty {
            body.element("text", [("x", 16.0), ("y", y + 12), ("class", "note")], content: "No transaction of this environment grants a publication of the catalog.")
            y += 30
        }
        for entitlement in entitlements {
            y = Panel(entitlement).draw(into: &body, top: y) + 22
        }
        y = Legend.draw(into: &body, top: y)
        var document = Markup()
        document.raw("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
        document.open("svg", [
            ("xmlns", "http://www.w3.org/2000/svg"), ("width", Self.width), ("height", y + 12),
            ("viewBox", "0 0 \(Markup.number(Self.width)) \(Markup.number(y + 12))"), ("font-family", "DejaVu Sans, Helvetica, Arial, sans-serif"),
        ])
        document.raw(Style.definitions)
        document.element("rect", [("x", 0), ("y", 0), ("width", Self.width), ("height", y + 12), ("fill", "#ffffff")])
        document.raw(body.text)
        document.close("svg")
        svg = document.text + "\n"
    }
}

/// The colours and patterns, one place for the chart and its legend.
enum Style {
    static func fill(_ kind: IntervalKind) -> String {
        switch kind {
        case .paid: "#2f6fb5"
        case .trial: "url(#hatch-trial)"
        case .introductoryOffer: "#7fa8d8"
        case .upgraded: "#9db4cf"
        case .nonRenewing: "#3f9a6b"
        case .free: "#69b3a2"
        case .grace: "url(#hatch-grace)"
        }
    }

    static func fill(_ access: AccessStyle) -> String { access == .archive ? "#1d3557" : "#7b4fa0" }

    static let refundedFill = "#fde2e2"
    static let refundedStroke = "#c0392b"
    static let lapseFill = "url(#hatch-lapse)"

    /// The marker of a readable issue: colour and letter.
    static func marker(_ reason: AccessReason) -> (fill: String, letter: String) {
        switch reason {
        case .publishedDuringPeriod: ("#2a9d3f", "P")
        case .unlockedAtPeriodStart: ("#d98c00", "U")
        case .streaming: ("#7b4fa0", "S")
        case .singlePurchase: ("#1f78b4", "$")
        case .free: ("#17a2b8", "F")
        }
    }

    static let definitions = """
        <defs>\
        <pattern id="hatch-trial" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">\
        <rect width="6" height="6" fill="#cfe0f3"/><rect width="2.5" height="6" fill="#2f6fb5"/></pattern>\
        <pattern id="hatch-grace" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">\
        <rect width="6" height="6" fill="#fbe3b0"/><rect width="2.5" height="6" fill="#e0a100"/></pattern>\
        <pattern id="hatch-lapse" width="8" height="8" patternUnits="userSpaceOnUse" patternTransform="rotate(-45)">\
        <rect width="8" height="8" fill="#fdf0f1"/><rect width="2" height="8" fill="#e8a0a8"/></pattern>\
        </defs>\
        <style>text{font-size:12px;fill:#222}.heading{font-size:15px;font-weight:bold}.title{font-size:13px;font-weight:bold}\
        .row{font-size:11px;fill:#555}.axis{font-size:10px;fill:#555}.note{font-size:11px;fill:#666}\
        .bar-label{font-size:10px;fill:#fff}.mark{font-size:9px;font-weight:bold;fill:#fff}.issue-label{font-size:10px}</style>
        """
}

/// The x coordinate of instants over a panel's time span.
struct TimeScale {
    let lower: Instant
    let upper: Instant

    func x(_ instant: Instant) -> Double {
        let clamped = min(max(instant, lower), upper)
        let fraction = Double(clamped.milliseconds - lower.milliseconds) / Double(max(1, upper.milliseconds - lower.milliseconds))
        return TimelineChart.plotLeft + fraction * (TimelineChart.plotRight - TimelineChart.plotLeft)
    }

    func contains(_ instant: Instant) -> Bool { lower <= instant && instant <= upper }

    /// Where a bar for `[start, end)` begins and how wide it is (at least 1.5 pixels, to stay visible).
    func bar(_ start: Instant, _ end: Instant) -> (x: Double, width: Double) {
        let x = x(start)
        return (x, max(1.5, self.x(end) - x))
    }
}

extension TimeScale {
    /// The span to draw: every period (an open end counts to the as-of instant), refund, readable
    /// issue and the as-of instant, widened by a twentieth on each side.
    init(_ entitlement: PublicationEntitlement) {
        var instants = [entitlement.at]
        for period in entitlement.periods {
            instants.append(period.start)
            if period.end != .distantFuture { instants.append(period.end) }
        }
        for refund in entitlement.refunded { instants += [refund.start, min(refund.end, max(refund.start, entitlement.at))] }
        for entry in entitlement.readable { instants.append(entry.issue.published) }
        var low = instants.min()!.milliseconds
        var high = instants.max()!.milliseconds
        if high - low < 86_400_000 * 14 {
            low -= 86_400_000 * 7
            high += 86_400_000 * 7
        }
        let margin = (high - low) / 20
        lower = Instant(milliseconds: low - margin)
        upper = Instant(milliseconds: high + margin)
    }
}

/// One publication's panel: title, issues, intervals, refunds, periods and lapses, axis.
struct Panel {
    let entitlement: PublicationEntitlement
    let scale: TimeScale

    init(_ entitlement: PublicationEntitlement) {
        self.entitlement = entitlement
        scale = TimeScale(entitlement)
    }

    /// Draws the panel from `top`; returns the y below it.
    func draw(into markup: inout Markup, top: Double) -> Double {
        let publication = entitlement.publication
        let hidden = publication.issues.count { !scale.contains($0.published) }
        markup.open("g", [("class", "publication"), ("data-publication", publication.id)])
        let title = (publication.title.map { "\($0) (\(publication.id))" } ?? publication.id)
            + " — \(entitlement.status.state.rawValue), \(entitlement.readable.count) of \(publication.issues.count) issues readable"
            + (hidden > 0 ? " (\(hidden) outside the span drawn)" : "")
        markup.element("text", [("x", 16.0), ("y", top + 12), ("class", "title")], content: title)
        var y = top + 30
        let plotTop = y
        y = drawIssues(into: &markup, top: y)
        y = drawIntervals(into: &markup, top: y)
        y = drawPeriods(into: &markup, top: y)
        drawAsOf(into: &markup, top: plotTop, bottom: y)
        y = drawAxis(into: &markup, top: y)
        markup.close("g")
        return y
    }

    private func rowLabel(_ text: String, y: Double, into markup: inout Markup) {
        markup.element("text", [("x", 16.0), ("y", y), ("class", "row")], content: text)
    }

    private func drawIssues(into markup: inout Markup, top: Double) -> Double {
        let markerY = top + 14
        rowLabel("Issues", y: markerY + 4, into: &markup)
        let decisions = entitlement.decisions.filter { scale.contains($0.issue.published) }
        // Labels only where they fit: every k-th issue when they are close together.
        let spacing = decisions.count > 1 ? (TimelineChart.plotRight - TimelineChart.plotLeft) / Double(decisions.count) : 100
        let labelEvery = max(1, Int((52 / spacing).rounded(.up)))
        for (position, (issue, access)) in decisions.enumerated() {
            let x = scale.x(issue.published)
            var attributes: [(String, any AttributeValue)] = [("data-issue", issue.id), ("data-published", issue.published.description)]
            let title: String
            switch access {
            case .readable(let reasons):
                attributes.insert(("class", "issue readable"), at: 0)
                attributes.append(("data-reason", reasons.map(\.name).joined(separator: " ")))
                title = "\(issue.id), published \(CivilTime.readable(issue.published)): readable — "
                    + reasons.map { $0.explanation(in: entitlement) }.joined(separator: "; ")
            case .notReadable(let denial):
                attributes.insert(("class", "issue denied"), at: 0)
                attributes.append(("data-reason", denial.name))
                title = "\(issue.id), published \(CivilTime.readable(issue.published)): not readable — \(denial.explanation)"
            }
            markup.open("g", attributes)
            markup.raw("<title>\(Markup.escape(title))</title>")
            markup.element("line", [("x1", x), ("y1", markerY + 8), ("x2", x), ("y2", markerY + 30), ("stroke", "#bbbbbb"), ("stroke-width", 1.0)])
            switch access {
            case .readable(let reasons):
                let style = Style.marker(reasons[0])
                markup.element("circle", [("cx", x), ("cy", markerY), ("r", 8.0), ("fill", style.fill)])
                markup.element("text", [("x", x), ("y", markerY + 3.2), ("text-anchor", "middle"), ("class", "mark")], content: style.letter)
            case .notReadable:
                markup.element("circle", [("cx", x), ("cy", markerY), ("r", 7.0), ("fill", "#ffffff"), ("stroke", "#999999"), ("stroke-width", 1.5)])
                markup.element("path", [("d", "M\(Markup.number(x - 3.5)) \(Markup.number(markerY - 3.5))l7 7m0 -7l-7 7"), ("stroke", "#999999"), ("stroke-width", 1.5)])
            }
            if position % labelEvery == 0 {
                markup.element("text", [("x", x), ("y", markerY + 24), ("text-anchor", "middle"), ("class", "issue-label")], content: issue.id)
            }
            markup.close("g")
        }
        return top + 40
    }

    /// Intervals and refunded purchases, each in the first lane where it does not overlap another.
    private func drawIntervals(into markup: inout Markup, top: Double) -> Double {
        let intervals = entitlement.periods.flatMap(\.intervals).sorted { ($0.start, $0.end) < ($1.start, $1.end) }
        var y = top
        rowLabel("Intervals", y: y + 16, into: &markup)
        let lanes = Self.lanes(intervals.map { ($0.start, $0.end) }, scale: scale)
        for (interval, lane) in zip(intervals, lanes) {
            let barTop = y + 4 + Double(lane) * TimelineChart.laneHeight
            let (x, width) = scale.bar(interval.start, interval.end)
            let title = "\(interval.kind.rawValue) \(interval.productId), transaction \(interval.transactionId): "
                + "\(CivilTime.readable(interval.start)) → \(CivilTime.readable(interval.end))"
            markup.open("g", [
                ("class", "interval \(interval.kind.rawValue)"), ("data-transaction", interval.transactionId), ("data-product", interval.productId),
                ("data-start", interval.start.description), ("data-end", Panel.endText(interval.end)),
            ])
            markup.element("rect", [("x", x), ("y", barTop), ("width", width), ("height", TimelineChart.barHeight), ("fill", Style.fill(interval.kind)),
                                    ("stroke", "#ffffff"), ("stroke-width", 1.0)], title: title)
            if width > 60 && interval.kind != .trial && interval.kind != .grace {
                markup.element("text", [("x", x + 4), ("y", barTop + 12), ("class", "bar-label")], content: Self.fitted(interval.kind.rawValue, width: width))
            }
            markup.close("g")
        }
        y += 4 + Double((lanes.max() ?? -1) + 1) * TimelineChart.laneHeight
        if !entitlement.refunded.isEmpty {
            rowLabel("Refunded", y: y + 16, into: &markup)
            let refundLanes = Self.lanes(entitlement.refunded.map { ($0.start, $0.end) }, scale: scale)
            for (refund, lane) in zip(entitlement.refunded, refundLanes) {
                let barTop = y + 4 + Double(lane) * TimelineChart.laneHeight
                let (x, width) = scale.bar(refund.start, refund.end)
                let title = "refunded \(refund.productId), transaction \(refund.transactionId): \(CivilTime.readable(refund.start)) → "
                    + "\(CivilTime.readable(refund.end)), refunded \(CivilTime.readable(refund.refundedAt))"
                markup.open("g", [
                    ("class", "refunded"), ("data-transaction", refund.transactionId), ("data-product", refund.productId),
                    ("data-start", refund.start.description), ("data-end", refund.end.description), ("data-refunded", refund.refundedAt.description),
                ])
                markup.element("rect", [("x", x), ("y", barTop), ("width", width), ("height", TimelineChart.barHeight), ("fill", Style.refundedFill),
                                        ("stroke", Style.refundedStroke), ("stroke-width", 1.5), ("stroke-dasharray", "4 2")], title: title)
                markup.element("line", [("x1", x), ("y1", barTop + 8), ("x2", x + width), ("y2", barTop + 8), ("stroke", Style.refundedStroke), ("stroke-width", 1.5)])
                markup.close("g")
            }
            y += 4 + Double((refundLanes.max() ?? -1) + 1) * TimelineChart.laneHeight
        }
        return y
    }

    private func drawPeriods(into markup: inout Markup, top: Double) -> Double {
        rowLabel("Periods", y: top + 16, into: &markup)
        let barTop = top + 4
        for (index, period) in entitlement.periods.enumerated() {
            let (x, width) = scale.bar(period.start, period.end)
            markup.open("g", [
                ("class", "period \(period.access.rawValue)"), ("data-index", index), ("data-start", period.start.description),
                ("data-end", Panel.endText(period.end)),
            ])
            markup.element("rect", [("x", x), ("y", barTop), ("width", width), ("height", TimelineChart.barHeight), ("fill", Style.fill(period.access))],
                           title: "period #\(index), \(period.access.rawValue): \(CivilTime.readable(period.start)) → \(CivilTime.readable(period.end))")
            if width > 70 {
                markup.element("text", [("x", x + 4), ("y", barTop + 12), ("class", "bar-label")], content: Self.fitted("#\(index) \(period.access.rawValue)", width: width))
            }
            markup.close("g")
        }
        for lapse in entitlement.lapses {
            let (x, width) = scale.bar(lapse.start, lapse.end ?? scale.upper)
            markup.open("g", [("class", "lapse"), ("data-access", lapse.access.rawValue), ("data-start", lapse.start.description), ("data-end", lapse.end?.description ?? "open")])
            markup.element("rect", [("x", x), ("y", barTop), ("width", width), ("height", TimelineChart.barHeight), ("fill", Style.lapseFill),
                                    ("stroke", "#d9534f"), ("stroke-width", 1.0)],
                           title: "lapse (\(lapse.access.rawValue)): \(CivilTime.readable(lapse.start)) → \(lapse.end.map(CivilTime.readable) ?? "still lapsed")")
            if width > 36 {
                markup.element("text", [("x", x + width / 2), ("y", barTop + 12), ("text-anchor", "middle"), ("fill", "#a12a2a")], content: "lapse")
            }
            markup.close("g")
        }
        return top + TimelineChart.laneHeight + 4
    }

    private func drawAsOf(into markup: inout Markup, top: Double, bottom: Double) {
        let x = scale.x(entitlement.at)
        markup.open("g", [("class", "as-of"), ("data-at", entitlement.at.description)])
        markup.element("line", [("x1", x), ("y1", top - 4), ("x2", x), ("y2", bottom), ("stroke", "#d62728"), ("stroke-width", 1.5), ("stroke-dasharray", "5 3")])
        let label: [(String, any AttributeValue)] = x > TimelineChart.plotRight - 130 ? [("x", x - 4), ("text-anchor", "end")] : [("x", x + 4)]
        markup.element("text", label + [("y", top - 4), ("fill", "#d62728"), ("class", "axis")], content: "as of \(CivilTime.readable(entitlement.at))")
        markup.close("g")
    }

    /// The axis with a tick at the start of every month (every year for long spans).
    private func drawAxis(into markup: inout Markup, top: Double) -> Double {
        let y = top + 4
        markup.element("line", [("x1", TimelineChart.plotLeft), ("y1", y), ("x2", TimelineChart.plotRight), ("y2", y), ("stroke", "#555555"), ("stroke-width", 1.0)])
        let lower = CivilTime(scale.lower)
        let spanDays = Double(scale.upper.milliseconds - scale.lower.milliseconds) / 86_400_000
        let stepMonths = spanDays > 365 * 4 ? 12 : spanDays > 365 * 2 ? 3 : 1
        var year = lower.year
        var month = lower.month
        let names = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        var first = true
        while true {
            month += 1
            if month > 12 {
                month = 1
                year += 1
            }
            guard (month - 1) % stepMonths == 0 else { continue }
            let tick = CivilTime(year: year, month: month, day: 1).instant
            if tick > scale.upper { break }
            let x = scale.x(tick)
            markup.element("line", [("x1", x), ("y1", y), ("x2", x), ("y2", y + 5), ("stroke", "#555555"), ("stroke-width", 1.0)])
            let label = stepMonths == 12 ? "\(year)" : month == 1 || first ? "\(names[month - 1]) \(year)" : names[month - 1]
            first = false
            markup.element("text", [("x", x), ("y", y + 17), ("text-anchor", "middle"), ("class", "axis")], content: label)
        }
        return y + 24
    }

    /// The lane of each (start, end) span, sorted by start: the first lane free by then. A renewal
    /// that overlaps the previous interval by less than two pixels (minutes or hours, as renewals
    /// do) stays in its lane, drawn over the end of the previous one.
    static func lanes(_ spans: [(start: Instant, end: Instant)], scale: TimeScale) -> [Int] {
        var laneEnds: [Instant] = []
        return spans.map { span in
            if let free = laneEnds.firstIndex(where: { $0 <= span.start || scale.x($0) - scale.x(span.start) < 2 }) {
                laneEnds[free] = span.end
                return free
            }
            laneEnds.append(span.end)
            return laneEnds.count - 1
        }
    }

    /// An end instant for a `data-end` attribute: RFC 3339, or `never` for an open end.
    static func endText(_ end: Instant) -> String { end == .distantFuture ? "never" : end.description }

    /// `text`, cut with an ellipsis to fit a bar `width` pixels wide.
    static func fitted(_ text: String, width: Double) -> String {
        let fits = Int((width - 8) / 6)
        return text.count <= fits ? text : String(text.prefix(max(1, fits - 1))) + "…"
    }
}

/// The key to the chart's colours and markers.
enum Legend {
    static func draw(into markup: inout Markup, top: Double) -> Double {
        markup.open("g", [("class", "legend")])
        var x = 16.0
        var y = top
        func swatch(_ fill: String, _ label: String, stroke: String? = nil) {
            var attributes: [(String, any AttributeValue)] = [("x", x), ("y", y), ("width", 22.0), ("height", 12.0), ("fill", fill)]
            if let stroke { attributes += [("stroke", stroke), ("stroke-dasharray", "4 2")] }
            markup.element("rect", attributes)
            markup.element("text", [("x", x + 28), ("y", y + 10), ("class", "row")], content: label)
            x += 34 + Double(label.count) * 6.4
        }
        func marker(_ fill: String, _ letter: String, _ label: String) {
            markup.element("circle", [("cx", x + 8), ("cy", y + 6), ("r", 8.0), ("fill", fill)])
            markup.element("text", [("x", x + 8), ("y", y + 9.2), ("text-anchor", "middle"), ("class", "mark")], content: letter)
            markup.element("text", [("x", x + 22), ("y", y + 10), ("class", "row")], content: label)
            x += 30 + Double(label.count) * 6.4
        }
        for kind in IntervalKind.allCases { swatch(Style.fill(kind), kind.rawValue) }
        swatch(Style.refundedFill, "refunded", stroke: Style.refundedStroke)
        x = 16
        y += 22
        swatch(Style.fill(.archive), "archive period")
        swatch(Style.fill(.streaming), "streaming period")
        swatch(Style.lapseFill, "lapse")
        x = 16
        y += 24
        let reasons: [(AccessReason, String)] = [
            (.publishedDuringPeriod(period: 0), "published in a period"), (.unlockedAtPeriodStart(period: 0), "unlocked at a period's start"),
            (.streaming(period: 0, window: nil), "streaming"), (.singlePurchase(transactionId: ""), "bought on its own"), (.free, "free"),
        ]
        for (reason, label) in reasons {
            let style = Style.marker(reason)
            marker(style.fill, style.letter, label)
        }
        markup.element("circle", [("cx", x + 8), ("cy", y + 6), ("r", 7.0), ("fill", "#ffffff"), ("stroke", "#999999"), ("stroke-width", 1.5)])
        markup.element("text", [("x", x + 22), ("y", y + 10), ("class", "row")], content: "not readable")
        markup.close("g")
        return y + 20
    }
}
