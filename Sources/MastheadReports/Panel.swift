import Masthead

/// One publication's panel of the timeline: title, as-of instant, issues, a row of intervals per
/// product (with billing grace and retry, and upgrades between products), refunds, a row of
/// periods and lapses per access style, the dates of the period boundaries, and the axis.
struct Panel {
    /// One product's row: its intervals and billing spans, each in the first lane where it fits.
    struct ProductRow {
        enum Item {
            case interval(Interval)
            case billing(BillingSpan)

            var start: Instant {
                switch self {
                case .interval(let interval): interval.start
                case .billing(let span): span.start
                }
            }

            var end: Instant {
                switch self {
                case .interval(let interval): interval.end
                case .billing(let span): span.end
                }
            }
        }

        var product: String
        var items: [Item]
    }

    let entitlement: PublicationEntitlement
    let billing: [BillingSpan]
    /// In order of each product's first interval.
    let productRows: [ProductRow]

    init(_ entitlement: PublicationEntitlement, history: PurchaseHistory) {
        self.entitlement = entitlement
        billing = BillingSpan.spans(entitlement, history: history)
        // Grace comes from the renewal info, drawn whatever the as-of instant (the engine counts
        // it only while the instant lies inside it, R9).
        let intervals = entitlement.periods.flatMap(\.intervals).filter { $0.kind != .grace }
        var items = intervals.map(ProductRow.Item.interval) + billing.map(ProductRow.Item.billing)
        items.sort { ($0.start, $0.end) < ($1.start, $1.end) }
        var rows: [ProductRow] = []
        for item in items {
            let product = switch item {
            case .interval(let interval): interval.productId
            case .billing(let span): span.productId
            }
            if let index = rows.firstIndex(where: { $0.product.sameBytes(as: product) }) {
                rows[index].items.append(item)
            } else {
                rows.append(ProductRow(product: product, items: [item]))
            }
        }
        productRows = rows
    }

    /// Draws the panel from `top`; returns the y below it.
    func draw(into canvas: inout TimelineCanvas, top: Double, scale: TimeScale) -> Double {
        let publication = entitlement.publication
        let hidden = publication.issues.count { !scale.contains($0.published) }
        canvas.open("g", [("class", "publication"), ("data-publication", publication.id)])
        let title = (publication.title.map { "\($0) (\(publication.id))" } ?? publication.id)
            + " — \(stateText), \(entitlement.readable.count) of \(publication.issues.count) issues readable"
            + (hidden > 0 ? " (\(hidden) outside the span drawn)" : "")
        canvas.text(title, x: 16, y: top + 13, size: 13, bold: true, classes: "title")
        let asOfX = scale.x(entitlement.at)
        let asOfLabel = "as of \(CivilTime.readable(entitlement.at)) UTC"
        let labelWidth = TextMetrics.width(asOfLabel, size: 10)
        let asOfOnRight = asOfX + 4 + labelWidth <= TimelineChart.width - 8
        canvas.text(asOfLabel, x: asOfOnRight ? asOfX + 4 : asOfX - 4, y: top + 31, size: 10, anchor: asOfOnRight ? "start" : "end", fill: Style.asOfColour, classes: "as-of-label")
        var y = top + 36
        let plotTop = y
        y = drawIssues(into: &canvas, top: y, scale: scale)
        var barCentres: [ExactKey: Double] = [:]
        for row in productRows { y = draw(row, into: &canvas, top: y, scale: scale, centres: &barCentres) }
        drawUpgrades(into: &canvas, scale: scale, centres: barCentres)
        y = drawRefunds(into: &canvas, top: y, scale: scale)
        for style in AccessStyle.allCases where entitlement.periods.contains(where: { $0.access == style }) {
            y = drawPeriods(style, into: &canvas, top: y, scale: scale)
        }
        y = drawBoundaries(into: &canvas, top: y, scale: scale)
        let axisY = y
        y = drawAxis(into: &canvas, top: axisY, scale: scale)
        // Drawn last, so that it passes around every label of the panel.
        if scale.contains(entitlement.at) {
            canvas.open("g", [("class", "as-of"), ("data-at", entitlement.at.description)])
            canvas.verticalLine(
                x: asOfX, top: plotTop - 4, bottom: axisY,
                [("stroke", Style.asOfColour), ("stroke-width", 1.5), ("stroke-dasharray", "5 3")])
            canvas.close("g")
            canvas.used.insert(.asOf)
        }
        canvas.close("g")
        return y
    }

    /// The reader's state in words for the title: a reader without a subscription who bought
    /// issues on their own is said to be one.
    var stateText: String {
        switch entitlement.status.state {
        case .active: return "active"
        case .gracePeriod: return "in a billing grace period"
        case .billingRetry: return "in billing retry"
        case .expired: return "expired"
        case .none:
            let bought = entitlement.readable.count { $0.reasons.contains { if case .singlePurchase = $0 { true } else { false } } }
            return bought == 0 ? "no subscription" : "no subscription, \(bought) issue\(bought == 1 ? "" : "s") bought on \(bought == 1 ? "its" : "their") own"
        }
    }

    private func rowLabel(_ text: String, y: Double, into canvas: inout TimelineCanvas) {
        canvas.text(text, x: 16, y: y, size: TimelineChart.rowLabelSize, fill: "#555555", classes: "row")
    }

    /// Every issue in the span: its id above a marker per reason it is readable (hollow with a
    /// cross when it is not), and a tick down to the time it was published.
    private func drawIssues(into canvas: inout TimelineCanvas, top: Double, scale: TimeScale) -> Double {
        let markerY = top + 22
        rowLabel("Issues", y: markerY + 4, into: &canvas)
        let decisions = entitlement.decisions.filter { scale.contains($0.issue.published) }
        let xs = decisions.map { scale.x($0.issue.published) }
        // The room around each issue: the distance to its nearest neighbour.
        func room(_ position: Int) -> Double {
            let before = position > 0 ? xs[position] - xs[position - 1] : .infinity
            let after = position + 1 < xs.count ? xs[position + 1] - xs[position] : .infinity
            return min(before, after)
        }
        var lastLabelEnd = -Double.infinity
        for (position, (issue, access)) in decisions.enumerated() {
            let x = xs[position]
            var attributes: [(String, any AttributeValue)] = [("data-issue", issue.id), ("data-published", issue.published.description)]
            let title: String
            switch access {
            case .readable(let reasons):
                attributes.insert(("class", "issue readable"), at: 0)
                attributes.append(("data-reason", reasons.map(\.name).joined(separator: " ")))
                title = "\(issue.id), published \(CivilTime.readable(issue.published)): readable — "
                    + reasons.map { $0.explanation(of: issue, in: entitlement) }.joined(separator: "; ")
            case .notReadable(let denial):
                // An issue not yet published is no one's to read: not drawn as a reader locked out.
                attributes.insert(("class", denial == .notYetPublished ? "issue unpublished" : "issue denied"), at: 0)
                attributes.append(("data-reason", denial.name))
                title = "\(issue.id), published \(CivilTime.readable(issue.published)): not readable — \(denial.explanation)"
            }
            canvas.open("g", attributes)
            canvas.raw("<title>\(Markup.escape(title))</title>")
            let label = TextMetrics.box(issue.id, x: x, y: top + 9, size: 10, anchor: "middle")
            if label.minX >= lastLabelEnd + 4 && label.minX >= scale.left - 40 && label.maxX <= TimelineChart.width - 8 {
                canvas.text(issue.id, x: x, y: top + 9, size: 10, anchor: "middle", classes: "issue-label")
                lastLabelEnd = label.maxX
            }
            switch access {
            case .readable(let reasons):
                // One marker per letter, side by side, when the neighbours leave room for them.
                var letters: [(fill: String, letter: String)] = []
                for reason in reasons where !letters.contains(where: { $0.letter == Style.marker(reason).letter }) { letters.append(Style.marker(reason)) }
                if Double(letters.count) * 16 > room(position) - 4 { letters = [letters[0]] }
                for (index, style) in letters.enumerated() {
                    let cx = x + (Double(index) - Double(letters.count - 1) / 2) * 16
                    canvas.element("circle", [("cx", cx), ("cy", markerY), ("r", 7.5), ("fill", style.fill)])
                    canvas.avoid(TextMetrics.Box(minX: cx - 7.5, minY: markerY - 7.5, maxX: cx + 7.5, maxY: markerY + 7.5))
                    if room(position) >= 12 {
                        canvas.text(style.letter, x: cx, y: markerY + 3.2, size: 9, anchor: "middle", bold: true, fill: "#ffffff", classes: "mark")
                    }
                    canvas.used.insert(.marker(style.letter))
                }
            case .notReadable(.notYetPublished):
                canvas.element("circle", [
                    ("cx", x), ("cy", markerY), ("r", 6.5), ("fill", "#ffffff"), ("stroke", "#bbbbbb"), ("stroke-width", 1.5), ("stroke-dasharray", "2 2"),
                ])
                canvas.avoid(TextMetrics.Box(minX: x - 7.5, minY: markerY - 7.5, maxX: x + 7.5, maxY: markerY + 7.5))
                canvas.used.insert(.unpublished)
            case .notReadable:
                canvas.element("circle", [("cx", x), ("cy", markerY), ("r", 6.5), ("fill", "#ffffff"), ("stroke", "#999999"), ("stroke-width", 1.5)])
                canvas.avoid(TextMetrics.Box(minX: x - 7.5, minY: markerY - 7.5, maxX: x + 7.5, maxY: markerY + 7.5))
                canvas.element("path", [("d", "M\(Markup.number(x - 3)) \(Markup.number(markerY - 3))l6 6m0 -6l-6 6"), ("stroke", "#999999"), ("stroke-width", 1.5)])
                canvas.used.insert(.denied)
            }
            canvas.element("line", [("x1", x), ("y1", markerY + 8), ("x2", x), ("y2", markerY + 14), ("stroke", "#bbbbbb"), ("stroke-width", 1)])
            canvas.close("g")
        }
        return top + 40
    }

    /// One product's row: its id, then its intervals, grace and retry in lanes. Records the
    /// vertical centre of each interval's bar, by transaction, for the upgrade arrows.
    private func draw(
        _ row: ProductRow, into canvas: inout TimelineCanvas, top: Double, scale: TimeScale, centres: inout [ExactKey: Double]
    ) -> Double {
        rowLabel(row.product, y: top + 16, into: &canvas)
        let lanes = Self.lanes(row.items.map { ($0.start, $0.end) }, scale: scale)
        // A lane below the first holding the billing retry is named for it.
        for lane in Set(lanes) where lane > 0 && zip(row.items, lanes).contains(where: { item, itemLane in
            if itemLane == lane, case .billing(let span) = item, span.kind == .retry { true } else { false }
        }) {
            rowLabel(Panel.retryRowLabel, y: top + 16 + Double(lane) * TimelineChart.laneHeight, into: &canvas)
        }
        for (index, (item, lane)) in zip(row.items, lanes).enumerated() {
            let barTop = top + 4 + Double(lane) * TimelineChart.laneHeight
            let (x, width) = scale.bar(item.start, item.end)
            // Room for a label after a short bar: up to the next bar of the lane.
            let nextStart = zip(row.items, lanes).dropFirst(index + 1).first { $0.1 == lane }.map { scale.x($0.0.start) }
            let room = (nextStart ?? TimelineChart.width - 8) - 4
            switch item {
            case .interval(let interval):
                centres[ExactKey(interval.transactionId)] = barTop + TimelineChart.barHeight / 2
                let title = "\(interval.kind.rawValue) \(interval.productId), transaction \(interval.transactionId): "
                    + "\(CivilTime.readable(interval.start)) → \(CivilTime.readable(interval.end))"
                canvas.open("g", [
                    ("class", "interval \(interval.kind.rawValue)"), ("data-transaction", interval.transactionId), ("data-product", interval.productId),
                    ("data-start", interval.start.description), ("data-end", Self.endText(interval.end)),
                ])
                canvas.element("rect", [("x", x), ("y", barTop), ("width", width), ("height", TimelineChart.barHeight), ("fill", Style.fill(interval.kind)),
                                        ("stroke", "#ffffff"), ("stroke-width", 1)], title: title)
                barLabel(
                    [interval.kind.rawValue], x: x, width: width, barTop: barTop, fill: Style.labelColour(interval.kind), outsideUpTo: room, into: &canvas)
                canvas.close("g")
                canvas.used.insert(.interval(interval.kind))
            case .billing(let span):
                let grace = span.kind == .grace
                let name = grace ? "billing grace" : "billing retry"
                let title = grace
                    ? "billing grace, \(span.productId) (transaction \(span.transactionId)): \(CivilTime.readable(span.start)) → \(CivilTime.readable(span.end)); "
                        + "issues published in it are readable while the as-of instant lies in it (R9)"
                    : "billing retry, \(span.productId) (transaction \(span.transactionId)): the App Store retries the payment for up to "
                        + "\(BillingSpan.retryDays) days, \(CivilTime.readable(span.start)) → \(CivilTime.readable(span.end)) (R15)"
                canvas.open("g", [
                    ("class", grace ? "interval grace" : "billing-retry"), ("data-transaction", span.transactionId), ("data-product", span.productId),
                    ("data-start", span.start.description), ("data-end", span.end.description),
                ])
                if grace {
                    canvas.element("rect", [("x", x), ("y", barTop), ("width", width), ("height", TimelineChart.barHeight), ("fill", Style.fill(.grace)),
                                            ("stroke", "#ffffff"), ("stroke-width", 1)], title: title)
                    canvas.used.insert(.interval(.grace))
                } else {
                    canvas.element("rect", [("x", x), ("y", barTop + 0.5), ("width", width), ("height", TimelineChart.barHeight - 1), ("fill", Style.retryFill),
                                            ("stroke", Style.retryStroke), ("stroke-width", 1), ("stroke-dasharray", "4 2")], title: title)
                    canvas.used.insert(.billingRetry)
                }
                barLabel(grace ? [name, "grace"] : [name, "retry"], x: x, width: width, barTop: barTop, fill: "#1a1a1a", outsideUpTo: room, into: &canvas)
                canvas.close("g")
            }
        }
        return top + 4 + Double((lanes.max() ?? 0) + 1) * TimelineChart.laneHeight
    }

    /// An arrow from each upgraded interval down (or up) to the interval of the other product
    /// that starts when it was cut (R5.2).
    private func drawUpgrades(into canvas: inout TimelineCanvas, scale: TimeScale, centres: [ExactKey: Double]) {
        let intervals = entitlement.periods.flatMap(\.intervals)
        for upgraded in intervals where upgraded.kind == .upgraded {
            guard
                let next = intervals.first(where: {
                    $0.start == upgraded.end && !$0.productId.sameBytes(as: upgraded.productId) && $0.kind != .grace
                }),
                let from = centres[ExactKey(upgraded.transactionId)], let to = centres[ExactKey(next.transactionId)], from != to
            else { continue }
            let x = scale.x(upgraded.end)
            let direction = to > from ? 1.0 : -1.0
            let start = from + direction * (TimelineChart.barHeight / 2 + 1)
            let end = to - direction * (TimelineChart.barHeight / 2 + 1)
            canvas.open("g", [("class", "upgrade"), ("data-at", upgraded.end.description), ("data-from", upgraded.productId), ("data-to", next.productId)])
            canvas.raw("<title>\(Markup.escape("upgraded from \(upgraded.productId) to \(next.productId), \(CivilTime.readable(upgraded.end))"))</title>")
            canvas.verticalLine(x: x, top: min(start, end), bottom: max(start, end), [("stroke", Style.upgradeColour), ("stroke-width", 1.5)])
            canvas.element("path", [
                ("d", "M\(Markup.number(x - 4)) \(Markup.number(end - direction * 5))l4 \(Markup.number(direction * 5))l4 \(Markup.number(-direction * 5))z"),
                ("fill", Style.upgradeColour),
            ])
            canvas.close("g")
            canvas.used.insert(.upgrade)
        }
    }

    /// Refunded purchases, struck through, in a row of their own.
    private func drawRefunds(into canvas: inout TimelineCanvas, top: Double, scale: TimeScale) -> Double {
        guard !entitlement.refunded.isEmpty else { return top }
        rowLabel("Refunded", y: top + 16, into: &canvas)
        let lanes = Self.lanes(entitlement.refunded.map { ($0.start, $0.end) }, scale: scale)
        for (refund, lane) in zip(entitlement.refunded, lanes) {
            let barTop = top + 4 + Double(lane) * TimelineChart.laneHeight
            let (x, width) = scale.bar(refund.start, refund.end)
            let title = "refunded \(refund.productId), transaction \(refund.transactionId): \(CivilTime.readable(refund.start)) → "
                + "\(CivilTime.readable(refund.end)), refunded \(CivilTime.readable(refund.refundedAt))"
            canvas.open("g", [
                ("class", "refunded"), ("data-transaction", refund.transactionId), ("data-product", refund.productId),
                ("data-start", refund.start.description), ("data-end", refund.end.description), ("data-refunded", refund.refundedAt.description),
            ])
            canvas.element("rect", [("x", x), ("y", barTop), ("width", width), ("height", TimelineChart.barHeight), ("fill", Style.refundedFill),
                                    ("stroke", Style.refundedStroke), ("stroke-width", 1.5), ("stroke-dasharray", "4 2")], title: title)
            canvas.element("line", [("x1", x), ("y1", barTop + 8), ("x2", x + width), ("y2", barTop + 8), ("stroke", Style.refundedStroke), ("stroke-width", 1.5)])
            canvas.close("g")
        }
        canvas.used.insert(.refunded)
        return top + 4 + Double((lanes.max() ?? 0) + 1) * TimelineChart.laneHeight
    }

    /// The periods of one access style, with the lapses between them and after the last.
    private func drawPeriods(_ style: AccessStyle, into canvas: inout TimelineCanvas, top: Double, scale: TimeScale) -> Double {
        rowLabel("\(style == .archive ? "Archive" : "Streaming") periods", y: top + 16, into: &canvas)
        let barTop = top + 4
        for (index, period) in entitlement.periods.enumerated() where period.access == style {
            let (x, width) = scale.bar(period.start, period.end == .distantFuture ? scale.upper : period.end)
            canvas.open("g", [
                ("class", "period \(period.access.rawValue)"), ("data-index", index), ("data-start", period.start.description),
                ("data-end", Self.endText(period.end)),
            ])
            canvas.element("rect", [("x", x), ("y", barTop), ("width", width), ("height", TimelineChart.barHeight), ("fill", Style.fill(period.access))],
                           title: "period #\(index), \(period.access.rawValue): \(CivilTime.readable(period.start)) → \(CivilTime.readable(period.end))")
            barLabel(["#\(index) \(period.access.rawValue)", "#\(index)"], x: x, width: width, barTop: barTop, fill: "#ffffff", into: &canvas)
            canvas.close("g")
            canvas.used.insert(.period(style))
        }
        for lapse in entitlement.lapses where lapse.access == style {
            // A lapse still running is known only up to the as-of instant.
            let (x, width) = scale.bar(lapse.start, lapse.end ?? max(lapse.start, entitlement.at))
            canvas.open("g", [("class", "lapse"), ("data-access", lapse.access.rawValue), ("data-start", lapse.start.description), ("data-end", lapse.end?.description ?? "open")])
            canvas.element("rect", [("x", x), ("y", barTop), ("width", width), ("height", TimelineChart.barHeight), ("fill", Style.lapseFill),
                                    ("stroke", "#d9534f"), ("stroke-width", 1)],
                           title: "lapse (\(lapse.access.rawValue)): \(CivilTime.readable(lapse.start)) → \(lapse.end.map(CivilTime.readable) ?? "still lapsed")")
            barLabel("lapse", x: x, width: width, barTop: barTop, fill: "#a12a2a", centred: true, into: &canvas)
            canvas.close("g")
            canvas.used.insert(.lapse)
        }
        return top + TimelineChart.laneHeight + 4
    }

    /// Writes the first of `candidates` that fits whole inside the bar. When none does and
    /// `outsideUpTo` is given, the first is written just after the bar if it ends before that x
    /// and overlaps no label; otherwise the bar stays unlabelled (its title still names it).
    private func barLabel(
        _ candidates: [String], x: Double, width: Double, barTop: Double, fill: String, centred: Bool = false, outsideUpTo limit: Double? = nil,
        into canvas: inout TimelineCanvas
    ) {
        if let text = candidates.first(where: { TextMetrics.width($0, size: 10) + 8 <= width }) {
            canvas.text(text, x: centred ? x + width / 2 : x + 4, y: barTop + 12, size: 10, anchor: centred ? "middle" : "start", fill: fill, classes: "bar-label")
            return
        }
        guard let limit, let text = candidates.first else { return }
        let box = TextMetrics.box(text, x: x + width + 3, y: barTop + 12, size: 10)
        guard box.maxX <= limit, canvas.isFree(box) else { return }
        canvas.text(text, x: x + width + 3, y: barTop + 12, size: 10, fill: "#1a1a1a", classes: "bar-note")
    }

    private func barLabel(_ text: String, x: Double, width: Double, barTop: Double, fill: String, centred: Bool = false, into canvas: inout TimelineCanvas) {
        barLabel([text], x: x, width: width, barTop: barTop, fill: fill, centred: centred, into: &canvas)
    }

    /// The label of a product's lane that holds its billing retry.
    static let retryRowLabel = "billing retry"

    /// The dates of every period boundary and billing span end inside the span, above the axis,
    /// each at its instant (raised a row when it would overlap another).
    private func drawBoundaries(into canvas: inout TimelineCanvas, top: Double, scale: TimeScale) -> Double {
        var instants = Set<Instant>()
        for period in entitlement.periods {
            instants.insert(period.start)
            if period.end != .distantFuture { instants.insert(period.end) }
        }
        for span in billing { instants.insert(span.end) }
        let names = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let dates = instants.filter { scale.contains($0) }.sorted().map { instant -> (instant: Instant, text: String) in
            let civil = CivilTime(instant)
            return (instant, "\(civil.day) \(names[civil.month - 1])")
        }
        guard !dates.isEmpty else { return top }
        // Lanes from the axis up: each label in the lowest one where it overlaps no other.
        var laneEnds: [Double] = []
        var placed: [(instant: Instant, text: String, lane: Int)] = []
        for date in dates {
            let box = TextMetrics.box(date.text, x: scale.x(date.instant), y: 0, size: 10, anchor: "middle")
            let lane = laneEnds.firstIndex { $0 + 4 <= box.minX } ?? laneEnds.count
            if lane == laneEnds.count { laneEnds.append(box.maxX) } else { laneEnds[lane] = box.maxX }
            placed.append((date.instant, date.text, lane))
        }
        let axisY = top + 6 + Double(laneEnds.count) * 13
        canvas.open("g", [("class", "boundaries")])
        for (instant, text, lane) in placed {
            let x = scale.x(instant)
            canvas.open("g", [("class", "boundary"), ("data-at", instant.description)])
            canvas.raw("<title>\(Markup.escape(CivilTime.readable(instant)))</title>")
            canvas.text(text, x: x, y: axisY - 6 - Double(lane) * 13, size: 10, anchor: "middle", fill: "#8a1c1c", classes: "boundary-label")
            canvas.element("line", [("x1", x), ("y1", axisY - 3.5), ("x2", x), ("y2", axisY), ("stroke", "#8a1c1c"), ("stroke-width", 1.5)])
            canvas.close("g")
        }
        canvas.close("g")
        return axisY
    }

    /// The axis at `top`, with a tick at the start of every month (every quarter or year for
    /// long spans), labelled where the label fits.
    private func drawAxis(into canvas: inout TimelineCanvas, top y: Double, scale: TimeScale) -> Double {
        canvas.element("line", [("x1", scale.left), ("y1", y), ("x2", scale.right), ("y2", y), ("stroke", "#555555"), ("stroke-width", 1)])
        let lower = CivilTime(scale.lower)
        let spanDays = Double(scale.upper.milliseconds - scale.lower.milliseconds) / 86_400_000
        let stepMonths = spanDays > 365 * 4 ? 12 : spanDays > 365 * 2 ? 3 : 1
        var year = lower.year
        var month = lower.month
        let names = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        var first = true
        var lastLabelEnd = -Double.infinity
        canvas.open("g", [("class", "axis")])
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
            canvas.element("line", [("x1", x), ("y1", y), ("x2", x), ("y2", y + 5), ("stroke", "#555555"), ("stroke-width", 1)])
            let label = stepMonths == 12 ? "\(year)" : month == 1 || first ? "\(names[month - 1]) \(year)" : names[month - 1]
            let box = TextMetrics.box(label, x: x, y: y + 17, size: 10, anchor: "middle")
            if box.minX >= lastLabelEnd + 6 && box.minX >= 8 && box.maxX <= TimelineChart.width - 8 {
                canvas.text(label, x: x, y: y + 17, size: 10, anchor: "middle", fill: "#555555", classes: "axis-label")
                lastLabelEnd = box.maxX
                first = false
            }
        }
        canvas.close("g")
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
}
