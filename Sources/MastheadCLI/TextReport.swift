import Masthead

/// Renders entitlements for people: aligned columns, readable UTC dates, a sentence per decision.
enum TextReport {
    static func render(_ entitlements: UserEntitlements) -> String {
        var lines = ["As of \(date(entitlements.at)) UTC, \(entitlements.environment.rawValue) environment"]
        if entitlements.publications.isEmpty {
            lines.append("")
            lines.append("No transaction of this environment grants a publication of the catalog.")
        }
        for publication in entitlements.publications {
            lines.append("")
            lines += render(publication)
        }
        if !entitlements.unknownProductIds.isEmpty {
            lines.append("")
            lines.append("Products not in the catalog (they grant nothing): " + entitlements.unknownProductIds.joined(separator: ", "))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func render(_ entitlement: PublicationEntitlement) -> [String] {
        let publication = entitlement.publication
        var lines = [publication.title.map { "\($0) (\(publication.id))" } ?? publication.id]
        lines.append("  Status   " + status(entitlement.status))
        var periodLines: [String] = []
        var events: [(start: Instant, text: String)] = []
        for (index, period) in entitlement.periods.enumerated() {
            let kinds = period.intervals.map(\.kind.rawValue)
            let count = period.intervals.count
            events.append(
                (period.start,
                 "#\(index) \(pad(period.access.rawValue, 9)) \(date(period.start)) → \(date(period.end))   \(count) interval\(count == 1 ? "" : "s") (\(kinds.joined(separator: ", ")))"))
        }
        for lapse in entitlement.lapses {
            events.append((lapse.start, "   lapse     \(date(lapse.start)) → \(lapse.end.map(date) ?? "…")"))
        }
        for event in events.sorted(by: { $0.start < $1.start }) { periodLines.append(event.text) }
        if periodLines.isEmpty { periodLines = ["none"] }
        lines.append("  Periods  " + periodLines[0])
        lines += periodLines.dropFirst().map { "           " + $0 }
        for refund in entitlement.refunded { lines.append(self.refund(refund)) }
        let decisions = entitlement.decisions
        lines.append("  Issues   \(decisions.count) in the catalog, \(entitlement.readable.count) readable")
        let width = decisions.map(\.issue.id.count).max() ?? 0
        for (issue, access) in decisions {
            let verdict = (access.isReadable ? "yes  " : "no   ") + access.explanation(of: issue, in: entitlement)
            lines.append("    \(pad(issue.id, width))  \(date(issue.published))  \(verdict)")
        }
        return lines
    }

    /// A refund's line: refunded (R5.1), or ended at the revocation by a prorated refund or the
    /// end of Family Sharing (R5.3), which keeps what was paid for before.
    static func refund(_ refund: RefundedPurchase) -> String {
        let purchase = "\(refund.transactionId) (\(refund.productId))"
        guard refund.endedPurchase, let type = refund.revocationType else {
            return "  Refund   \(purchase) refunded \(date(refund.refundedAt))"
        }
        if type == .familyRevoke { return "  Revoked  \(purchase) Family Sharing ended at \(date(refund.refundedAt))" }
        let share = refund.revocationPercentage.map { " (\(Denial.percentText($0)))" } ?? ""
        return "  Refund   \(purchase) refund prorated\(share): ended at \(date(refund.refundedAt))"
    }

    static func status(_ status: SubscriptionStatus) -> String {
        var parts = [status.state.rawValue]
        if let on = status.autoRenewOn { parts.append("auto-renew \(on ? "on" : "off")") }
        if let product = status.currentProductId { parts.append("product \(product)") }
        if status.hasPendingPlanChange, let next = status.autoRenewProductId { parts.append("renews to \(next)") }
        if let intent = status.expirationIntent { parts.append("expiration intent \(intent)") }
        return parts.joined(separator: ", ")
    }

    static func date(_ instant: Instant) -> String { CivilTime.readable(instant) }

    static func pad(_ text: String, _ width: Int) -> String { text + String(repeating: " ", count: max(0, width - text.count)) }
}
