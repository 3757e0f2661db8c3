/// The space text takes in the pictures, so that labels can be placed without overlapping each
/// other or the lines: advance widths of DejaVu Sans, the first font the pictures name (the
/// fallbacks, Helvetica and Arial, are narrower), read from its `hmtx` table.
enum TextMetrics {
    /// A rectangle in picture coordinates (y grows downwards).
    struct Box: Equatable, Sendable {
        var minX: Double
        var minY: Double
        var maxX: Double
        var maxY: Double

        /// Creates a box from its edges.
        init(minX: Double, minY: Double, maxX: Double, maxY: Double) {
            self.minX = minX
            self.minY = minY
            self.maxX = maxX
            self.maxY = maxY
        }

        /// Whether the two boxes share more than an edge.
        func overlaps(_ other: Box) -> Bool {
            minX < other.maxX && other.minX < maxX && minY < other.maxY && other.minY < maxY
        }

        /// The box grown by `margin` on every side.
        func inflated(by margin: Double) -> Box {
            Box(minX: minX - margin, minY: minY - margin, maxX: maxX + margin, maxY: maxY + margin)
        }

        /// Whether the segment from (x1, y1) to (x2, y2) passes through the box (touching an edge does not count).
        func isCrossed(x1: Double, y1: Double, x2: Double, y2: Double) -> Bool {
            // Liang–Barsky clipping of the segment against the open box.
            var low = 0.0
            var high = 1.0
            let dx = x2 - x1
            let dy = y2 - y1
            for (p, q) in [(-dx, x1 - minX), (dx, maxX - x1), (-dy, y1 - minY), (dy, maxY - y1)] {
                if p == 0 {
                    if q <= 0 { return false }
                } else {
                    let t = q / p
                    if p < 0 { low = max(low, t) } else { high = min(high, t) }
                }
            }
            return low < high
        }
    }

    /// How wide `text` is at `size` pixels.
    static func width(_ text: String, size: Double, bold: Bool = false) -> Double {
        let table = bold ? boldWidths : regularWidths
        var thousandths = 0
        for scalar in text.unicodeScalars {
            let value = Int(scalar.value)
            thousandths += (32...126).contains(value) ? table[value - 32] : 1000
        }
        return Double(thousandths) / 1000 * size
    }

    /// The box of a `text` element: `x`, `y` (the baseline), anchored `start`, `middle` or `end`.
    /// Ascent and descent are those of the font's capitals, digits and descenders.
    static func box(_ text: String, x: Double, y: Double, size: Double, anchor: String = "start", bold: Bool = false) -> Box {
        let width = width(text, size: size, bold: bold)
        let left = anchor == "middle" ? x - width / 2 : anchor == "end" ? x - width : x
        return Box(minX: left, minY: y - size * 0.76, maxX: left + width, maxY: y + size * 0.24)
    }

    /// Advance widths of the printable ASCII characters (32…126), in thousandths of an em; any
    /// other character counts as a whole em.
    private static let regularWidths = [
        318, 401, 460, 838, 636, 950, 780, 275, 390, 390, 500, 838, 318, 361, 318, 337,
        636, 636, 636, 636, 636, 636, 636, 636, 636, 636, 337, 337, 838, 838, 838, 531,
        1000, 684, 686, 698, 770, 632, 575, 775, 752, 295, 295, 656, 557, 863, 748, 787,
        603, 787, 695, 635, 611, 732, 684, 989, 685, 611, 685, 390, 337, 390, 838, 500,
        500, 613, 635, 550, 635, 615, 352, 635, 634, 278, 278, 579, 278, 974, 634, 612,
        635, 635, 411, 521, 392, 634, 592, 818, 592, 592, 525, 636, 337, 636, 838,
    ]

    private static let boldWidths = [
        348, 456, 521, 838, 696, 1002, 872, 306, 457, 457, 523, 838, 380, 415, 380, 365,
        696, 696, 696, 696, 696, 696, 696, 696, 696, 696, 400, 400, 838, 838, 838, 580,
        1000, 774, 762, 734, 830, 683, 683, 821, 837, 372, 372, 775, 637, 995, 837, 850,
        733, 850, 770, 720, 682, 812, 774, 1103, 771, 724, 725, 457, 365, 457, 838, 500,
        500, 675, 716, 593, 716, 678, 435, 716, 712, 343, 343, 665, 343, 1042, 712, 687,
        716, 716, 493, 595, 478, 712, 652, 924, 645, 652, 582, 712, 365, 712, 838,
    ]
}
