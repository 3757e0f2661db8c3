public import Masthead

/// One reader's entitlements drawn as an SVG picture, after seed 000's Figure 6-1: per
/// publication every issue as a marker saying whether it is readable and why, each product's
/// intervals in a row of their own (with billing grace and retry, and upgrades), the publisher's
/// span grants in a row per source (R17), refunded
/// purchases, archive and streaming periods each in their own row with their lapses, the dates
/// of every period boundary, a time axis and the as-of instant.
///
/// Every drawn element carries a `class` (`interval paid`, `period archive`, `lapse`,
/// `issue readable`…) and `data-` attributes (instants, ids, reasons) so that the picture can be
/// checked by a program, and a `<title>` that a browser shows on hover. Labels are placed where
/// they fit whole, never over one another, and no line runs through them.
public struct TimelineChart {
    /// The picture's width in pixels.
    public static let width = 1100.0
    /// The right end of the time axis.
    static let plotRight = width - 28
    static let laneHeight = 24.0
    static let barHeight = 16.0
    /// The size of row labels (product ids among them).
    static let rowLabelSize = 11.0

    /// The SVG document.
    public let svg: String

    /// Draws `entitlements` (one panel each, in order) for the reader named `reader`.
    /// - Parameters:
    ///   - reader: the user's name or id for the heading; nil when unknown.
    ///   - entitlements: the answers to draw, all as of one instant.
    ///   - history: the history they were decided from: its renewal info shows billing retry and grace.
    ///   - from, to: limit the time drawn (by default every issue, period, refund and billing span).
    public init(reader: String?, entitlements: [PublicationEntitlement], history: PurchaseHistory, from: Instant? = nil, to: Instant? = nil) {
        let panels = entitlements.map { Panel($0, history: history) }
        let labels = ["Issues", "Refunded", "Archive periods", "Streaming periods", Panel.retryRowLabel] + panels.flatMap(\.productRows).map(\.label)
        let widest = labels.map { TextMetrics.width($0, size: Self.rowLabelSize) }.max() ?? 0
        let plotLeft = max(110, (16 + widest + 14).rounded(.up))
        var canvas = TimelineCanvas()
        var y = 16.0
        let heading = (reader ?? "Reader")
            + (entitlements.first.map { " — as of \(CivilTime.readable($0.at)) UTC, \($0.environment.rawValue)" } ?? "")
        canvas.text(heading, x: 16, y: y + 15, size: 15, bold: true, classes: "heading")
        y += 34
        if entitlements.isEmpty {
            canvas.text("No transaction of this environment grants a publication of the catalog.", x: 16, y: y + 12, size: 11, fill: "#666666", classes: "note")
            y += 30
        }
        for panel in panels {
            let scale = TimeScale(panel, from: from, to: to, left: plotLeft, right: Self.plotRight)
            y = panel.draw(into: &canvas, top: y, scale: scale) + 22
        }
        y = Legend.draw(canvas.used, into: &canvas, top: y)
        let height = y + 12
        var document = Markup()
        document.raw("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
        document.open("svg", [
            ("xmlns", "http://www.w3.org/2000/svg"), ("width", Self.width), ("height", height),
            ("viewBox", "0 0 \(Markup.number(Self.width)) \(Markup.number(height))"), ("font-family", "DejaVu Sans, Helvetica, Arial, sans-serif"),
        ])
        document.raw(Style.definitions)
        document.element("rect", [("x", 0), ("y", 0), ("width", Self.width), ("height", height), ("fill", "#ffffff")])
        document.raw(canvas.markup.text)
        document.close("svg")
        svg = document.text + "\n"
    }
}
