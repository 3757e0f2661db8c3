/// The errors of a user's entitlements and of the download check, besides the shared ones
/// (``ServiceError/unknownUser(_:)``, ``ServiceError/unknownPublication(_:)``, the store).
enum EntitlementError: ServiceFailure {
    /// `at` is not an RFC 3339 instant.
    case invalidAt
    /// `environment` is neither `production` nor `sandbox`.
    case invalidEnvironment
    /// The publication has no such issue.
    case unknownIssue(publicationId: String, issueId: String)

    var rendering: (status: Int, code: String, message: String) {
        switch self {
        case .invalidAt: (400, "invalid_at", "at must be an RFC 3339 instant such as 2020-07-02T00:00:00Z")
        case .invalidEnvironment: (400, "invalid_environment", "environment must be production or sandbox")
        case .unknownIssue(let publicationId, let issueId): (404, "unknown_issue", "publication \(publicationId) has no issue \(issueId)")
        }
    }

    static var examples: [EntitlementError] { [.invalidAt, .invalidEnvironment, .unknownIssue(publicationId: "", issueId: "")] }
}
