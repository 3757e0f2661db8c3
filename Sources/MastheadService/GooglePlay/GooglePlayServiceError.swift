import MastheadGooglePlay

/// The errors of the Google Play routes: `POST /v1/notifications/google-play` and
/// `POST /v1/users/{userId}/google-play/purchases`.
enum GooglePlayServiceError: ServiceFailure {
    /// `googlePlayPackageName` is not set: Google Play is off.
    case notConfigured
    /// The Pub/Sub push request's OIDC token was refused (the reason; never the token).
    case pushRefused(String)
    /// The push body or the notification it carries is not one (the reason names the JSON path).
    case invalidNotification(String)
    /// The body of a purchase is not `{"packageName", "purchaseToken"[, "productId"]}` (the reason names the JSON path).
    case invalidPurchase(String)
    /// The notification or purchase is for another app.
    case wrongPackage(String)
    /// Google knows no such purchase token (HTTP 404 or 410).
    case unknownPurchase
    /// The purchase is of Play products the catalog does not map.
    case unknownProduct([String])
    /// The purchase names another user as its account (`obfuscatedExternalAccountId`), or its
    /// subscription is linked to another user already.
    case belongsToAnotherUser
    /// Google refused the service account (HTTP 401 or 403, the status): a configuration error.
    /// The answer does not name the account (the service's log does).
    case notAuthorized(status: Int)
    /// Google refused the purchase token as malformed (HTTP 400).
    case malformedPurchase
    /// Google answered what cannot be read, or refused the request (the reason).
    case badAnswer(String)
    /// Google could not answer now (429, 5xx, the network: the reason); try again later.
    case unavailable(String)
    /// Too many requests are asking Google already.
    case busy(Int)

    var rendering: (status: Int, code: String, message: String) {
        switch self {
        case .notConfigured: (404, "google_play_not_configured", "Google Play is not configured (googlePlayPackageName is not set)")
        case .pushRefused(let reason): (401, "google_play_push_refused", "the Pub/Sub push request was refused: \(reason)")
        case .invalidNotification(let reason): (400, "invalid_google_play_notification", reason)
        case .invalidPurchase(let reason): (422, "invalid_google_play_purchase", reason)
        case .wrongPackage(let name): (422, "google_play_wrong_package", "package \"\(name)\" is not the configured googlePlayPackageName")
        case .unknownPurchase: (422, "unknown_google_play_purchase", "Google Play knows no such purchase token")
        case .unknownProduct(let ids):
            (422, "unknown_google_play_product", "the catalog maps no product to the Google Play product \(ids.map { "\"\($0)\"" }.joined(separator: ", "))")
        case .belongsToAnotherUser: (409, "google_play_purchase_belongs_to_another_user", "the Google Play purchase belongs to another user")
        case .notAuthorized(let status):
            (
                502, "google_play_not_authorized",
                "Google refused the service account's credentials (HTTP \(status)): check that its key is active and that the account has access to the app in the Play Console"
            )
        case .malformedPurchase: (422, "invalid_google_play_purchase", "$.purchaseToken: Google refused the purchase token as malformed (HTTP 400)")
        case .badAnswer(let reason): (502, "google_play_failed", reason)
        case .unavailable(let reason): (503, "google_play_unavailable", reason)
        case .busy(let limit): (503, "google_play_busy", "\(limit) requests are asking Google already; try again shortly")
        }
    }

    var headers: [(name: String, value: String)] {
        switch self {
        case .unavailable, .busy: [("Retry-After", "10")]
        default: []
        }
    }

    /// The error to answer when asking Google failed (one that names the service account says so
    /// without it: ``GooglePlayConnection/failure(_:)`` logs it whole).
    init(_ error: GooglePlayError) {
        switch error {
        case .notAuthorized(_, let status, _, _): self = .notAuthorized(status: status)
        case .refused(_, 400, _): self = .malformedPurchase
        case .purchaseNotFound: self = .unknownPurchase
        case .rateLimited, .unavailable, .signingKeysUnavailable: self = .unavailable(error.description)
        default: self = .badAnswer(error.description)
        }
    }

    static var examples: [GooglePlayServiceError] {
        [
            .notConfigured, .pushRefused(""), .invalidNotification(""), .invalidPurchase(""), .wrongPackage(""), .unknownPurchase, .unknownProduct([]),
            .belongsToAnotherUser, .notAuthorized(status: 403), .malformedPurchase, .badAnswer(""), .unavailable(""), .busy(1),
        ]
    }
}
