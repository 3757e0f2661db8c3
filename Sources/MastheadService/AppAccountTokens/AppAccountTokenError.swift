/// The errors of the app account token routes.
enum AppAccountTokenError: ServiceFailure {
    /// The app account token (canonical) belongs to another user.
    case inUse(String)
    /// The user has no such app account token (canonical).
    case unknown(userId: String, token: String)

    var rendering: (status: Int, code: String, message: String) {
        switch self {
        case .inUse(let token): (409, "app_account_token_in_use", "app account token \(token) is linked to another user")
        case .unknown(let userId, let token): (404, "unknown_app_account_token", "user \(userId) has no app account token \(token)")
        }
    }

    static var examples: [AppAccountTokenError] { [.inUse(""), .unknown(userId: "", token: "")] }
}
