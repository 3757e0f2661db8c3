/// The errors of the grant routes.
enum GrantError: ServiceFailure {
    /// The body is not a valid grant: the reason names the field's JSON path and line.
    case invalidGrant(String)
    /// Another user holds the grant id (a grant id names one grant of one user).
    case belongsToAnotherUser(grantId: String)
    /// The user has no grant with this id.
    case unknown(userId: String, grantId: String)

    var status: Int {
        switch self {
        case .invalidGrant: 400
        case .unknown: 404
        case .belongsToAnotherUser: 409
        }
    }

    var code: String {
        switch self {
        case .invalidGrant: "invalid_grant"
        case .belongsToAnotherUser: "grant_belongs_to_another_user"
        case .unknown: "unknown_grant"
        }
    }

    var message: String {
        switch self {
        case .invalidGrant(let reason): reason
        case .belongsToAnotherUser(let grantId): "grant \(grantId) belongs to another user"
        case .unknown(let userId, let grantId): "user \(userId) has no grant \(grantId)"
        }
    }

    static var examples: [GrantError] { [.invalidGrant(""), .belongsToAnotherUser(grantId: ""), .unknown(userId: "", grantId: "")] }
}
