import Masthead

/// The x coordinate of instants over a panel's time span.
struct TimeScale {
    let lower: Instant
    let upper: Instant
    /// Where the axis begins and ends, in pixels.
    let left: Double
    let right: Double

    init(lower: Instant, upper: Instant, left: Double = 120, right: Double = TimelineChart.plotRight) {
        self.lower = lower
        self.upper = upper
        self.left = left
        self.right = right
    }

    func x(_ instant: Instant) -> Double {
        let clamped = min(max(instant, lower), upper)
        let fraction = Double(clamped.milliseconds - lower.milliseconds) / Double(max(1, upper.milliseconds - lower.milliseconds))
        return left + fraction * (right - left)
    }

    func contains(_ instant: Instant) -> Bool { lower <= instant && instant <= upper }

    /// Where a bar for `[start, end)` begins and how wide it is (at least 1.5 pixels, to stay visible).
    func bar(_ start: Instant, _ end: Instant) -> (x: Double, width: Double) {
        let x = x(start)
        return (x, max(1.5, self.x(end) - x))
    }
}

extension TimeScale {
    /// The span to draw: `from`…`to` when given; otherwise every issue, period (an open end counts
    /// to the as-of instant), refund and billing span and the as-of instant, widened by a fortieth
    /// on each side.
    init(_ panel: Panel, from: Instant?, to: Instant?, left: Double, right: Double) {
        let entitlement = panel.entitlement
        var instants = [entitlement.at]
        for issue in entitlement.publication.issues { instants.append(issue.published) }
        for period in entitlement.periods {
            instants.append(period.start)
            if period.end != .distantFuture { instants.append(period.end) }
        }
        for refund in entitlement.refunded { instants += [refund.start, min(refund.end, max(refund.start, entitlement.at))] }
        for span in panel.billing { instants += [span.start, span.end] }
        var low = (from ?? instants.min()!).milliseconds
        var high = (to ?? instants.max()!).milliseconds
        if from == nil || to == nil {
            if high - low < Instant.millisecondsPerDay * 14 {
                low -= from == nil ? Instant.millisecondsPerDay * 7 : 0
                high += to == nil ? Instant.millisecondsPerDay * 7 : 0
            }
            let margin = (high - low) / 40
            if from == nil { low -= margin }
            if to == nil { high += margin }
        }
        self.init(lower: Instant(milliseconds: low), upper: Instant(milliseconds: max(high, low + 1)), left: left, right: right)
    }
}
