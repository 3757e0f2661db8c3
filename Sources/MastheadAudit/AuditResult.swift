/// What an audit found, for the summary table, the messages after the run and the HTML report.
public struct AuditResult {
    /// The configuration the audit ran with.
    public let configuration: AuditConfiguration
    /// The counts per instant, state, product and finding.
    public let summary: AuditSummary
    /// Grants the audit could not place (unknown publications and issues, users without a
    /// receipt line), one message each, for standard error.
    public let grantMessages: [String]
    /// The lines with findings the report lists.
    let listing: FindingListing
}
