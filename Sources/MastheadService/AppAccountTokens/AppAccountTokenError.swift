/// The errors of the app account token routes.
enum AppAccountTokenError: ServiceFailure {
    /// The app account token (canonical) belongs to another user.
    case inUse(String)
    /// The user has no such app account token (canonical).
    case unknown(userId: String, token: String)

    var status: Int {
        switch self {
        case .unknown: 404
        case .inUse: 409
        }
    }

    var code: String {
        switch self {
        case .inUse: "app_account_token_in_use"
        case .unknown: "unknown_app_account_token"
        }
    }

    var message: String {
        switch self {
        case .inUse(let token): "app account token \(token) is linked to another user"
        case .unknown(let userId, let token): "user \(userId) has no app account token \(token)"
        }
    }

    static var examples: [AppAccountTokenError] { [.inUse(""), .unknown(userId: "", token: "")] }
}
