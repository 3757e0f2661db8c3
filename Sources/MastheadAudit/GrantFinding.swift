public import MastheadReports

/// What reconciling a content system's grants with the entitlements finds about one issue of one
/// (user, publication) line, as of an audit instant.
public enum GrantFinding: String, CaseIterable, Sendable {
    /// Served when the reader was not entitled to it, judged at the instant it was served
    /// (`granted_at`; at the audit instant for a grant without one): a revenue leak.
    case overGranted
    /// Entitled at the audit instant but not served by then: a reader who paid and cannot read.
    /// Free issues never are.
    case underGranted
    /// Served while the reader was entitled and still held according to the grants, but no longer
    /// entitled at the audit instant (a streaming reader who lapsed, a refund): not a discrepancy.
    case heldAfterEntitlementEnded

    /// The name in words, for headings.
    public var title: String {
        switch self {
        case .overGranted: "over-granted"
        case .underGranted: "under-granted"
        case .heldAfterEntitlementEnded: "held after entitlement ended"
        }
    }

    /// What it means, in one sentence for a publisher.
    public var meaning: String {
        switch self {
        case .overGranted:
            "served when the reader was not entitled to it, judged at the instant it was served (granted_at; the audit instant when the grant has none): a revenue leak."
        case .underGranted: "entitled at the audit instant but not served by then: a reader who paid and cannot read (free issues never count)."
        case .heldAfterEntitlementEnded:
            "served while the reader was entitled, still held according to the grants, but no longer entitled at the audit instant (a streaming reader who lapsed, a refund); not a discrepancy."
        }
    }

    /// Whether it counts as a discrepancy (`--fail-on-discrepancy`).
    public var isDiscrepancy: Bool { self != .heldAfterEntitlementEnded }

    /// How the HTML report shows it.
    public var presentation: AuditReportPage.FindingKind { AuditReportPage.FindingKind(name: rawValue, title: title, meaning: meaning) }
}
