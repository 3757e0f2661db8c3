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

    var status: Int {
        switch self {
        case .wrongSharedSecret, .notificationRefused: 401
        case .invalidLimit, .invalidBodies: 400
        }
    }

    var code: String {
        switch self {
        case .wrongSharedSecret: "unauthorized"
        case .notificationRefused: "notification_refused"
        case .invalidLimit: "invalid_limit"
        case .invalidBodies: "invalid_bodies"
        }
    }

    var message: String {
        switch self {
        case .wrongSharedSecret: "the notification password does not match the shared secret"
        case .notificationRefused(let error): "the signed notification was refused: \(error.description)"
        case .invalidLimit(let max): "limit must be a whole number from 1 to \(max)"
        case .invalidBodies: "bodies must be true or false"
        }
    }

    static var examples: [NotificationError] {
        [.wrongSharedSecret, .notificationRefused(.missingField(path: "$", line: 1)), .invalidLimit(max: 1), .invalidBodies]
    }
}
