/// The errors of the grant routes.
enum GrantError: ServiceFailure {
    /// The body is not a valid grant: the reason names the field's JSON path and line.
    case invalidGrant(String)
    /// Another user holds the grant id (a grant id names one grant of one user).
    case belongsToAnotherUser(grantId: String)
    /// The user has no grant with this id.
    case unknown(userId: String, grantId: String)

    var rendering: (status: Int, code: String, message: String) {
        switch self {
        case .invalidGrant(let reason): (400, "invalid_grant", reason)
        case .belongsToAnotherUser(let grantId): (409, "grant_belongs_to_another_user", "grant \(grantId) belongs to another user")
        case .unknown(let userId, let grantId): (404, "unknown_grant", "user \(userId) has no grant \(grantId)")
        }
    }

    static var examples: [GrantError] { [.invalidGrant(""), .belongsToAnotherUser(grantId: ""), .unknown(userId: "", grantId: "")] }
}
