import Foundation
@testable import MastheadReports
import MastheadTestSupport

/// Where a picture's labels lie, measured with the font's advance widths, and what a reader would
/// find wrong with them: a label outside the canvas, two labels over each other, a line through a
/// label, a bar's label sticking out of its bar.
enum SVGLayout {
    struct Label {
        var text: String
        var box: TextMetrics.Box
        /// The index of the `text` element.
        var index: Int
    }

    /// Sizes of the text classes of pictures that give no `font-size` attribute.
    private static let classSizes = ["heading": 15.0, "title": 13, "row": 11, "axis": 10, "note": 11, "bar-label": 10, "mark": 9, "issue-label": 10]

    /// Every non-empty `text` element with its box.
    static func labels(_ elements: [SVGElements.Element]) -> [Label] {
        elements.indices.compactMap { index in
            let element = elements[index]
            let text = element.text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard element.name == "text", !text.isEmpty, let x = element.number("x"), let y = element.number("y") else { return nil }
            let size = element.number("font-size") ?? element.classes.compactMap { classSizes[$0] }.first ?? 12
            let bold = element.attributes["font-weight"] == "bold" || element.classes.contains { ["heading", "title", "mark"].contains($0) }
            return Label(text: text, box: TextMetrics.box(text, x: x, y: y, size: size, anchor: element.attributes["text-anchor"] ?? "start", bold: bold), index: index)
        }
    }

    /// What is wrong with the picture's labels; empty when nothing is.
    static func problems(_ elements: [SVGElements.Element]) -> [String] {
        var problems: [String] = []
        let labels = labels(elements)
        if let root = elements.first, let width = root.number("width"), let height = root.number("height") {
            for label in labels where label.box.minX < 0 || label.box.minY < 0 || label.box.maxX > width || label.box.maxY > height {
                problems.append("'\(label.text)' lies outside the \(width)×\(height) canvas: \(label.box)")
            }
        } else {
            problems.append("the picture has no width and height")
        }
        for (first, label) in labels.enumerated() {
            for other in labels[(first + 1)...] where label.box.overlaps(other.box) {
                problems.append("'\(label.text)' overlaps '\(other.text)'")
            }
        }
        for line in elements where line.name == "line" {
            guard let x1 = line.number("x1"), let y1 = line.number("y1"), let x2 = line.number("x2"), let y2 = line.number("y2") else { continue }
            for label in labels where label.box.isCrossed(x1: x1, y1: y1, x2: x2, y2: y2) {
                problems.append("a line from (\(x1), \(y1)) to (\(x2), \(y2)) runs through '\(label.text)'")
            }
        }
        for label in labels where elements[label.index].classes.contains("bar-label") {
            guard let group = elements[label.index].parent,
                let bar = elements.inside(group).first(where: { $0.name == "rect" }),
                let x = bar.number("x"), let y = bar.number("y"), let width = bar.number("width"), let height = bar.number("height")
            else {
                problems.append("'\(label.text)' has no bar")
                continue
            }
            let box = label.box
            if box.minX < x || box.maxX > x + width || box.minY < y || box.maxY > y + height {
                problems.append("'\(label.text)' does not fit in its bar (\(x)…\(x + width)): \(box)")
            }
        }
        return problems
    }
}
