import Masthead

/// A stacked bar per as-of instant: how many (user, publication) lines are in each state, each
/// segment named with its count beside the bar (up to four instants; beyond, the table says).
struct StatusChart {
    static let fontSize = 13.0
    static let barWidth = 110.0
    static let plotTop = 44.0
    static let plotHeight = 320.0
    static let left = 84.0
    /// Room beside a bar for its segments' labels.
    static let labelRoom = 210.0
    /// Segment labels are drawn for at most this many instants.
    static let labelledInstants = 4

    let svg: String
    /// The canvas size.
    let width: Double
    let height: Double

    /// Colours a reader can tell apart, on white as from each other (Okabe and Ito's palette for
    /// colour-blind readers, with a grey for expired).
    static func colour(_ state: SubscriptionState) -> String {
        switch state {
        case .active: "#009E73"
        case .gracePeriod: "#56B4E9"
        case .billingRetry: "#D55E00"
        case .expired: "#8C8C8C"
        case .none: "#CC79A7"
        }
    }

    init(instants: [Instant], states: [[SubscriptionState: Int]]) {
        let labelled = instants.count <= Self.labelledInstants
        let slot = Self.barWidth + (labelled ? Self.labelRoom : 50)
        let present = SubscriptionState.allCases.filter { state in states.contains { ($0[state] ?? 0) > 0 } }
        let legendWidth = present.map { 42 + TextMetrics.width($0.rawValue, size: Self.fontSize) }.reduce(0, +)
        width = max(Self.left + 20 + Double(instants.count) * slot, Self.left + legendWidth + 20)
        height = Self.plotTop + Self.plotHeight + 56
        let largest = max(1, states.map { $0.values.reduce(0, +) }.max() ?? 1)
        let step = Self.niceStep(Double(largest) / 4)
        let axisMax = (Double(largest) / step).rounded(.up) * step
        let size = Self.fontSize
        // Labels and bars first; the grid goes behind them, around the labels.
        var chart = Markup()
        var boxes: [TextMetrics.Box] = []
        func text(_ content: String, x: Double, y: Double, anchor: String = "start", fill: String = "#222222", classes: String? = nil) {
            boxes.append(TextMetrics.box(content, x: x, y: y, size: size, anchor: anchor))
            var attributes: [(String, any AttributeValue)] = [("x", x), ("y", y), ("font-size", size), ("fill", fill)]
            if anchor != "start" { attributes.append(("text-anchor", anchor)) }
            if let classes { attributes.append(("class", classes)) }
            chart.element("text", attributes, content: content)
        }
        // The legend: the states that appear, in one row above the plot.
        var legendX = Self.left
        chart.open("g", [("class", "legend")])
        for state in present {
            chart.element("rect", [("x", legendX), ("y", 8.0), ("width", 14.0), ("height", 14.0), ("fill", Self.colour(state)), ("stroke", "#333333"), ("stroke-width", 0.5)])
            text(state.rawValue, x: legendX + 20, y: 20, fill: "#333333")
            legendX += 20 + TextMetrics.width(state.rawValue, size: size) + 22
        }
        chart.close("g")
        func y(_ value: Double) -> Double { Self.plotTop + Self.plotHeight - value / axisMax * Self.plotHeight }
        var gridValues: [Double] = []
        var value = 0.0
        while value <= axisMax {
            text(Markup.thousands(Int(value)), x: Self.left - 8, y: y(value) + 4.5, anchor: "end", fill: "#555555")
            gridValues.append(value)
            value += step
        }
        for (index, instant) in instants.enumerated() {
            let x = Self.left + 20 + Double(index) * slot
            var base = 0.0
            var segments: [(state: SubscriptionState, count: Int, middle: Double)] = []
            chart.open("g", [("class", "bar"), ("data-at", instant.description)])
            for state in SubscriptionState.allCases {
                let count = states[index][state] ?? 0
                guard count > 0 else { continue }
                let top = y(base + Double(count))
                chart.element("rect", [
                    ("x", x), ("y", top), ("width", Self.barWidth), ("height", Double(count) / axisMax * Self.plotHeight),
                    ("fill", Self.colour(state)), ("stroke", "#ffffff"), ("stroke-width", 0.5), ("data-state", state.rawValue), ("data-count", count),
                ], title: "\(state.rawValue): \(Markup.thousands(count))")
                segments.append((state, count, (top + y(base)) / 2))
                base += Double(count)
            }
            chart.close("g")
            if labelled {
                for label in Self.labels(segments, barRight: x + Self.barWidth) {
                    chart.element("line", [("x1", x + Self.barWidth + 2), ("y1", label.middle), ("x2", label.x - 4), ("y2", label.baseline - 4.5), ("stroke", "#777777"), ("stroke-width", 0.8)])
                    text(label.text, x: label.x, y: label.baseline, classes: "segment-label")
                }
            }
            let day = CivilTime(instant)
            text(String(instant.description.prefix(10)), x: x + Self.barWidth / 2, y: Self.plotTop + Self.plotHeight + 20, anchor: "middle")
            if day.hour != 0 || day.minute != 0 || day.second != 0 || day.millisecond != 0 {
                text(String(instant.description.dropFirst(11)), x: x + Self.barWidth / 2, y: Self.plotTop + Self.plotHeight + 38, anchor: "middle", fill: "#666666")
            }
        }
        var grid = Markup()
        for value in gridValues {
            // Interrupted wherever a label lies on it.
            var segments = [(Self.left - 4, width - 20)]
            for box in boxes.map({ $0.inflated(by: 2) }) where box.minY < y(value) && y(value) < box.maxY {
                segments = segments.flatMap { start, end -> [(Double, Double)] in
                    guard box.minX < end && start < box.maxX else { return [(start, end)] }
                    return [(start, box.minX), (box.maxX, end)].filter { $0.1 - $0.0 >= 1 }
                }
            }
            for (start, end) in segments {
                grid.element("line", [("x1", start), ("y1", y(value)), ("x2", end), ("y2", y(value)), ("stroke", "#e6e6e6")])
            }
        }
        var document = Markup()
        document.open("svg", [
            ("xmlns", "http://www.w3.org/2000/svg"), ("class", "status-chart"), ("width", width), ("height", height),
            ("viewBox", "0 0 \(Markup.number(width)) \(Markup.number(height))"), ("font-family", "DejaVu Sans, Helvetica, Arial, sans-serif"),
        ])
        document.element("rect", [("x", 0.0), ("y", 0.0), ("width", width), ("height", height), ("fill", "#ffffff")])
        document.raw(grid.text)
        document.raw(chart.text)
        document.close("svg")
        svg = document.text + "\n"
    }

    /// Where each segment's name and count go beside the bar, joined to it by a leader line:
    /// labels keep 17 pixels apart, moved up (or down at the top) from their segment's middle.
    private static func labels(_ segments: [(state: SubscriptionState, count: Int, middle: Double)], barRight: Double)
        -> [(text: String, x: Double, baseline: Double, middle: Double)]
    {
        let gap = 17.0
        // Baselines, bottom segment first: each at least `gap` above the one below.
        var baselines: [Double] = []
        for segment in segments {
            let wanted = segment.middle + 4.5
            baselines.append(baselines.last.map { min(wanted, $0 - gap) } ?? wanted)
        }
        // Pushed down again where they would rise above the plot.
        var floor = plotTop + 10
        for index in baselines.indices.reversed() {
            baselines[index] = max(baselines[index], floor)
            floor = baselines[index] + gap
        }
        return zip(segments, baselines).map { segment, baseline in
            ("\(segment.state.rawValue) \(Markup.thousands(segment.count))", barRight + 34, baseline, segment.middle)
        }
    }

    /// 1, 2 or 5 times a power of ten, at least `value`.
    static func niceStep(_ value: Double) -> Double {
        var power = 1.0
        while power * 10 <= value { power *= 10 }
        for factor in [1.0, 2, 5, 10] where power * factor >= value { return power * factor }
        return power * 10
    }
}
