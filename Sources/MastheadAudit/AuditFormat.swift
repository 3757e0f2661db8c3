/// The shape of the audit's output lines.
public enum AuditFormat: String, Sendable, CaseIterable {
    /// One JSON object per (user, publication), reasons as objects.
    case jsonl
    /// A header line, then one row per (user, publication); reasons by name.
    case csv
}
