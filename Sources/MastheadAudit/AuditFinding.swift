/// The findings of one kind on one (user, publication) line at one audit instant, kept for the
/// HTML report: the issues with the reasons in words.
struct AuditFinding {
    var kind: GrantFinding
    /// The product the line counts under at the instant (``AuditSummary/productKey(_:)``).
    var product: String
    /// The index of the audit instant.
    var instant: Int
    var userId: String
    var publication: String
    var issues: [(issue: String, detail: String)]
}
