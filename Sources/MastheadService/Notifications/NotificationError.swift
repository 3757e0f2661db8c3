import MastheadFormats

/// The errors of the notification routes: `POST /v1/notifications/app-store` and
/// `GET /v1/notifications/rejected`.
enum NotificationError: ServiceFailure {
    /// A notification's `password` is not the App Store shared secret.
    case wrongSharedSecret
    /// A version 2 notification was refused: its signature, its app, or what it carries (the
    /// reason, naming the JSON path).
    case notificationRefused(FormatError)
    /// `limit` is not a whole number from 1 to the most allowed.
    case invalidLimit(max: Int)
    /// `bodies` is neither `true` nor `false`.
    case invalidBodies

    var rendering: (status: Int, code: String, message: String) {
        switch self {
        case .wrongSharedSecret: (401, "unauthorized", "the notification password does not match the shared secret")
        case .notificationRefused(let error): (401, "notification_refused", "the signed notification was refused: \(error.description)")
        case .invalidLimit(let max): (400, "invalid_limit", "limit must be a whole number from 1 to \(max)")
        case .invalidBodies: (400, "invalid_bodies", "bodies must be true or false")
        }
    }

    static var examples: [NotificationError] {
        [.wrongSharedSecret, .notificationRefused(.missingField(path: "$", line: 1)), .invalidLimit(max: 1), .invalidBodies]
    }
}
