/// The errors of a user's entitlements and of the download check, besides the shared ones
/// (``ServiceError/unknownUser(_:)``, ``ServiceError/unknownPublication(_:)``, the store).
enum EntitlementError: ServiceFailure {
    /// `at` is not an RFC 3339 instant.
    case invalidAt
    /// `environment` is neither `production` nor `sandbox`.
    case invalidEnvironment
    /// The publication has no such issue.
    case unknownIssue(publicationId: String, issueId: String)

    var status: Int {
        switch self {
        case .invalidAt, .invalidEnvironment: 400
        case .unknownIssue: 404
        }
    }

    var code: String {
        switch self {
        case .invalidAt: "invalid_at"
        case .invalidEnvironment: "invalid_environment"
        case .unknownIssue: "unknown_issue"
        }
    }

    var message: String {
        switch self {
        case .invalidAt: "at must be an RFC 3339 instant such as 2020-07-02T00:00:00Z"
        case .invalidEnvironment: "environment must be production or sandbox"
        case .unknownIssue(let publicationId, let issueId): "publication \(publicationId) has no issue \(issueId)"
        }
    }

    static var examples: [EntitlementError] { [.invalidAt, .invalidEnvironment, .unknownIssue(publicationId: "", issueId: "")] }
}
