/// The errors of the catalog routes, besides the shared ``ServiceError/unknownPublication(_:)``.
enum CatalogError: ServiceFailure {
    /// The body of a published issue is not what it should be, and why.
    case invalidIssue(String)

    var status: Int { 400 }

    var code: String { "invalid_issue" }

    var message: String {
        switch self {
        case .invalidIssue(let reason): reason
        }
    }

    static var examples: [CatalogError] { [.invalidIssue("")] }
}
