/// The picture being drawn: its markup, the box of every label and marker placed so far (lines
/// are drawn around them), and which legend entries the drawing used.
struct TimelineCanvas {
    private(set) var markup = Markup()
    /// The labels placed so far.
    private(set) var boxes: [TextMetrics.Box] = []
    /// Other things lines go around: the issues' markers.
    private(set) var obstacles: [TextMetrics.Box] = []
    var used: Set<Legend.Entry> = []

    /// The space kept clear around a label where a line would cross it.
    static let clearance = 2.0

    /// Places a label; `y` is its baseline.
    mutating func text(
        _ content: String, x: Double, y: Double, size: Double, anchor: String = "start", bold: Bool = false, fill: String = "#222222",
        classes: String? = nil
    ) {
        boxes.append(TextMetrics.box(content, x: x, y: y, size: size, anchor: anchor, bold: bold))
        var attributes: [(String, any AttributeValue)] = [("x", x), ("y", y), ("font-size", size), ("fill", fill)]
        if anchor != "start" { attributes.append(("text-anchor", anchor)) }
        if bold { attributes.append(("font-weight", "bold")) }
        if let classes { attributes.append(("class", classes)) }
        markup.element("text", attributes, content: content)
    }

    /// Keeps lines drawn later out of `box`.
    mutating func avoid(_ box: TextMetrics.Box) { obstacles.append(box) }

    /// Whether a label would overlap one already placed.
    func isFree(_ box: TextMetrics.Box) -> Bool { !boxes.contains { $0.overlaps(box) } }

    /// A vertical line at `x` from `top` to `bottom`, interrupted wherever it would run through a
    /// label or marker placed before it.
    mutating func verticalLine(x: Double, top: Double, bottom: Double, _ attributes: [(String, any AttributeValue)]) {
        var segments = [(top, bottom)]
        for box in (boxes + obstacles).map({ $0.inflated(by: Self.clearance) }) where box.minX < x && x < box.maxX {
            segments = segments.flatMap { start, end -> [(Double, Double)] in
                guard box.minY < end && start < box.maxY else { return [(start, end)] }
                return [(start, box.minY), (box.maxY, end)].filter { $0.1 - $0.0 >= 1 }
            }
        }
        for (start, end) in segments {
            markup.element("line", [("x1", x), ("y1", start), ("x2", x), ("y2", end)] + attributes)
        }
    }

    /// Appends raw markup.
    mutating func raw(_ text: String) { markup.raw(text) }

    /// Appends an element (see ``Markup/element(_:_:content:title:)``).
    mutating func element(_ name: String, _ attributes: [(String, any AttributeValue)], title: String? = nil) {
        markup.element(name, attributes, title: title)
    }

    mutating func open(_ name: String, _ attributes: [(String, any AttributeValue)] = []) { markup.open(name, attributes) }

    mutating func close(_ name: String) { markup.close(name) }
}
