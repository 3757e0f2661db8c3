import Masthead

/// The key to the timeline's colours and markers: only what the picture uses.
enum Legend {
    /// Something drawn that the legend explains.
    enum Entry: Hashable {
        case interval(IntervalKind)
        case billingRetry
        case refunded
        case upgrade
        case period(AccessStyle)
        case lapse
        case asOf
        /// A readable issue's marker, by letter.
        case marker(String)
        case denied
        /// An issue published after the as-of instant.
        case unpublished
    }

    /// The marker letters in the legend's order, with their meaning.
    static let markers: [(reason: AccessReason, label: String)] = [
        (.publishedDuringPeriod(period: 0), "published in a period"), (.unlockedAtPeriodStart(period: 0), "unlocked at a period's start"),
        (.streaming(period: 0, window: nil), "streaming"), (.singlePurchase(transactionId: ""), "bought on its own"),
        (.granted(grantId: "", source: ""), "given by an issue grant"), (.free, "free"),
    ]

    /// Draws the entries of `used` from `top`, in rows that wrap at the picture's width; returns
    /// the y below them.
    static func draw(_ used: Set<Entry>, into canvas: inout TimelineCanvas, top: Double) -> Double {
        let size = 11.0
        let right = TimelineChart.width - 16
        var x = 16.0
        var y = top
        var rowHasEntries = false
        canvas.open("g", [("class", "legend")])
        /// Moves to the next row when the entry `width` wide does not fit in this one.
        func place(_ width: Double) {
            if x + width > right && x > 16 {
                x = 16
                y += 22
            }
            rowHasEntries = true
        }
        func newRow() {
            guard rowHasEntries else { return }
            x = 16
            y += 24
            rowHasEntries = false
        }
        func swatch(_ fill: String, _ label: String, stroke: String? = nil, dashed: Bool = false) {
            place(28 + TextMetrics.width(label, size: size))
            var attributes: [(String, any AttributeValue)] = [("x", x), ("y", y), ("width", 22), ("height", 12), ("fill", fill)]
            if let stroke { attributes += [("stroke", stroke), ("stroke-width", 1)] + (dashed ? [("stroke-dasharray", "4 2")] : []) }
            canvas.element("rect", attributes)
            canvas.text(label, x: x + 28, y: y + 10, size: size, fill: "#444444", classes: "legend-label")
            x += 28 + TextMetrics.width(label, size: size) + 16
        }
        func line(_ label: String, _ attributes: [(String, any AttributeValue)], arrow: Bool = false) {
            place(28 + TextMetrics.width(label, size: size))
            canvas.element("line", [("x1", x + 11), ("y1", y - 1), ("x2", x + 11), ("y2", y + 13)] + attributes)
            if arrow { canvas.element("path", [("d", "M\(Markup.number(x + 7)) \(Markup.number(y + 8))l4 5l4 -5z"), ("fill", Style.upgradeColour)]) }
            canvas.text(label, x: x + 28, y: y + 10, size: size, fill: "#444444", classes: "legend-label")
            x += 28 + TextMetrics.width(label, size: size) + 16
        }
        for kind in IntervalKind.allCases where used.contains(.interval(kind)) {
            swatch(Style.fill(kind), kind == .grace ? "billing grace" : kind == .grant ? "publisher grant" : kind.rawValue)
        }
        if used.contains(.billingRetry) { swatch(Style.retryFill, "billing retry (60 days)", stroke: Style.retryStroke, dashed: true) }
        if used.contains(.refunded) { swatch(Style.refundedFill, "refunded", stroke: Style.refundedStroke, dashed: true) }
        if used.contains(.upgrade) { line("upgrade", [("stroke", Style.upgradeColour), ("stroke-width", 1.5)], arrow: true) }
        newRow()
        for style in AccessStyle.allCases where used.contains(.period(style)) { swatch(Style.fill(style), "\(style.rawValue) period") }
        if used.contains(.lapse) { swatch(Style.lapseFill, "lapse") }
        if used.contains(.asOf) { line("as-of instant", [("stroke", Style.asOfColour), ("stroke-width", 1.5), ("stroke-dasharray", "5 3")]) }
        newRow()
        for (reason, label) in markers {
            let style = Style.marker(reason)
            guard used.contains(.marker(style.letter)) else { continue }
            place(22 + TextMetrics.width(label, size: size))
            canvas.element("circle", [("cx", x + 7), ("cy", y + 6), ("r", 7), ("fill", style.fill)])
            canvas.text(style.letter, x: x + 7, y: y + 9.2, size: 9, anchor: "middle", bold: true, fill: "#ffffff", classes: "mark")
            canvas.text(label, x: x + 20, y: y + 10, size: size, fill: "#444444", classes: "legend-label")
            x += 20 + TextMetrics.width(label, size: size) + 16
        }
        if used.contains(.denied) {
            place(22 + TextMetrics.width("not readable", size: size))
            canvas.element("circle", [("cx", x + 7), ("cy", y + 6), ("r", 6.5), ("fill", "#ffffff"), ("stroke", "#999999"), ("stroke-width", 1.5)])
            canvas.element("path", [("d", "M\(Markup.number(x + 4)) \(Markup.number(y + 3))l6 6m0 -6l-6 6"), ("stroke", "#999999"), ("stroke-width", 1.5)])
            canvas.text("not readable", x: x + 20, y: y + 10, size: size, fill: "#444444", classes: "legend-label")
            x += 20 + TextMetrics.width("not readable", size: size) + 16
        }
        if used.contains(.unpublished) {
            place(22 + TextMetrics.width("not yet published", size: size))
            canvas.element("circle", [
                ("cx", x + 7), ("cy", y + 6), ("r", 6.5), ("fill", "#ffffff"), ("stroke", "#bbbbbb"), ("stroke-width", 1.5), ("stroke-dasharray", "2 2"),
            ])
            canvas.text("not yet published", x: x + 20, y: y + 10, size: size, fill: "#444444", classes: "legend-label")
        }
        canvas.close("g")
        return rowHasEntries ? y + 20 : y
    }
}
