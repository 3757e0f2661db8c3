/// The version of masthead, shown in what it writes for people (the audit report).
enum MastheadVersion {
    static let current = "0.9.0"
}
