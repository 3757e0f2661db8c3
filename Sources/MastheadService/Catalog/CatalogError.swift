/// The errors of the catalog routes, besides the shared ``ServiceError/unknownPublication(_:)``.
enum CatalogError: ServiceFailure {
    /// The body of a published issue is not what it should be, and why.
    case invalidIssue(String)

    var rendering: (status: Int, code: String, message: String) {
        switch self {
        case .invalidIssue(let reason): (400, "invalid_issue", reason)
        }
    }

    static var examples: [CatalogError] { [.invalidIssue("")] }
}
