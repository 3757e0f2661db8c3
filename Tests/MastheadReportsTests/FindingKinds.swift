import MastheadReports

/// The kinds of findings the audit shows, as the page receives them.
extension AuditReportPage.FindingKind {
    static let overGranted = Self(name: "overGranted", title: "over-granted", meaning: "served when the reader was not entitled to it.")
    static let underGranted = Self(name: "underGranted", title: "under-granted", meaning: "entitled but not served.")
    static let heldAfterEntitlementEnded = Self(
        name: "heldAfterEntitlementEnded", title: "held after entitlement ended", meaning: "served while entitled, no longer entitled.")
}
