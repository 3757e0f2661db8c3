import MastheadHTTP
import MastheadJSON
import MastheadFormats

/// Every error the service answers with: each case has its status, a stable `code` and a message
/// for people, rendered in one place (``response``) as `{"error": {"code": "…", "message": "…"}}`.
///
/// The HTTP layer's errors (``HTTPError``) are answered in the same shape, through
/// ``ServiceRouter/errorResponse``.
enum ServiceError: Error, Sendable {
    /// The request could not be parsed, was over a limit or not answered in time.
    case http(HTTPError)
    /// No route has this path (or, for a route needing no token, this method and path).
    case noRoute(method: String, path: String)
    /// The path's route does not answer this method; `allowed` are those it does (HEAD aside).
    case methodNotAllowed(allowed: [String])
    /// No `Authorization: Bearer` with the API token (or, on a route that needs it, the admin token).
    case unauthorized
    /// A route that needs the admin token was called with the API token.
    case adminTokenRequired
    /// A notification's `password` is not the App Store shared secret.
    case wrongSharedSecret
    /// A version 2 notification was refused: its signature, its app, or what it carries (the
    /// reason, naming the JSON path).
    case notificationRefused(FormatError)
    /// Signed data arrived while no `appStoreBundleId` is configured.
    case signedDataNotConfigured
    /// A signed-transactions document was refused: a token's signature, app or payload, or the
    /// document's shape (the reason, naming the JSON path).
    case signedDataRefused(FormatError)
    /// The body is JSON but not a signed-transactions document.
    case notSignedTransactions
    /// A path segment that is not a valid id of its kind, and the rule it breaks.
    case invalidPathIdentifier(PathIdentifier, rule: String)
    /// `at` is not an RFC 3339 instant.
    case invalidAt
    /// `environment` is neither `production` nor `sandbox`.
    case invalidEnvironment
    /// `within` is not a duration such as `3d`.
    case invalidWindow
    /// `limit` is not a whole number from 1 to the most allowed.
    case invalidLimit(max: Int)
    /// `bodies` is neither `true` nor `false`.
    case invalidBodies
    /// The body is not JSON.
    case invalidJSON(JSONError)
    /// The body is not a receipt (a `FormatError` other than `receiptRejected`).
    case invalidReceipt(FormatError)
    /// The receipt's status says Apple refused it (`FormatError.receiptRejected`).
    case receiptRejected(FormatError)
    /// The body of a published issue is not what it should be, and why.
    case invalidIssue(String)
    /// A receipt's subscription is linked to another user (restore behaviour `refuse`).
    case receiptAlreadyInUse(environment: String, originalTransactionId: String)
    /// The app account token (canonical) belongs to another user.
    case appAccountTokenInUse(String)
    /// No receipt or app account token has been posted for the user.
    case unknownUser(String)
    /// The catalog has no such publication.
    case unknownPublication(String)
    /// The publication has no such issue.
    case unknownIssue(publicationId: String, issueId: String)
    /// The user has no such app account token (canonical).
    case unknownAppAccountToken(userId: String, token: String)
    /// A write failed: what was not stored (`receipt`, `notification`, `issue`, `app account
    /// token`, `removal of the app account token`) and why.
    case notStored(String, any Error)
    /// A read from the database failed.
    case storeUnavailable(any Error)
    /// A restore's body is not `{"transactionId": "…"}` with a transaction id of digits: what is wrong.
    case invalidTransactionId(String)
    /// A restore needs the App Store Server API, which is not configured: what is missing.
    case appStoreServerAPINotConfigured(String)
    /// Apple refused the App Store Server API key (HTTP 401 or 403): the key id, issuer id and
    /// bundle id to check.
    case appStoreServerAPIKeyRefused(String)
    /// Apple knows no transaction with this id, in production nor in the sandbox.
    case transactionNotFound(String)
    /// A signed token in Apple's answer was refused (the reason, naming its JSON path).
    case appleSignedDataRefused(String)
    /// Apple could not be asked, or its answer not read: why.
    case appStoreServerAPIFailed(String)
    /// As many restores as allowed are asking Apple already.
    case tooManyRestores(Int)
    /// A restore not done within `restoreTimeoutMilliseconds` (Apple too slow, or the write not
    /// begun in time): why; nothing is stored.
    case restoreTimedOut(String)
    /// Apple's transaction history for a subscription's original transaction id has none of its
    /// transactions (a receipt-only subscription `masthead migrate` cannot move).
    case subscriptionNotInHistory(environment: String, originalTransactionId: String)
    /// An error with a hint of what was probably meant: the error's status and code, its message
    /// followed by the hint.
    indirect case hinted(ServiceError, hint: String)

    /// The status code it is answered with.
    var status: Int {
        switch self {
        case .hinted(let error, _): error.status
        case .http(let error): error.status
        case .invalidPathIdentifier, .invalidAt, .invalidEnvironment, .invalidWindow, .invalidLimit, .invalidBodies, .invalidJSON, .invalidReceipt,
            .invalidIssue, .signedDataRefused, .notSignedTransactions:
            400
        case .unauthorized, .wrongSharedSecret, .notificationRefused: 401
        case .adminTokenRequired: 403
        case .noRoute, .unknownUser, .unknownPublication, .unknownIssue, .unknownAppAccountToken: 404
        case .methodNotAllowed: 405
        case .receiptAlreadyInUse, .appAccountTokenInUse: 409
        case .receiptRejected: 422
        case .notStored, .storeUnavailable, .signedDataNotConfigured, .appStoreServerAPINotConfigured, .appStoreServerAPIKeyRefused, .tooManyRestores: 503
        case .transactionNotFound: 404
        case .invalidTransactionId: 400
        case .appleSignedDataRefused, .appStoreServerAPIFailed, .subscriptionNotInHistory: 502
        case .restoreTimedOut: 504
        }
    }

    /// The stable code that tells errors apart in the answer.
    var code: String {
        switch self {
        case .hinted(let error, _): error.code
        case .http(let error):
            switch error {
            case .invalidRequestLine, .invalidTarget, .invalidHeaderField, .obsoleteLineFolding, .invalidHeaderValue, .missingHost,
                .severalHosts, .invalidContentLength, .conflictingContentLength, .ambiguousFraming:
                "bad_request"
            case .targetTooLong: "uri_too_long"
            case .unsupportedVersion: "http_version_not_supported"
            case .tooManyHeaderFields, .headerFieldTooLarge, .headersTooLarge: "request_header_fields_too_large"
            case .unsupportedTransferEncoding: "not_implemented"
            case .bodyTooLarge: "content_too_large"
            case .requestTimeout: "request_timeout"
            case .handlerTimeout: "handler_timeout"
            case .tooManyConnections: "too_many_connections"
            case .bodyBudgetExhausted: "server_busy"
            }
        case .noRoute: "not_found"
        case .methodNotAllowed: "method_not_allowed"
        case .unauthorized, .wrongSharedSecret: "unauthorized"
        case .notificationRefused: "notification_refused"
        case .signedDataNotConfigured: "signed_data_not_configured"
        case .signedDataRefused: "signed_data_refused"
        case .notSignedTransactions: "invalid_signed_data"
        case .adminTokenRequired: "forbidden"
        case .invalidPathIdentifier(let kind, _): kind.code
        case .invalidAt: "invalid_at"
        case .invalidEnvironment: "invalid_environment"
        case .invalidWindow: "invalid_window"
        case .invalidLimit: "invalid_limit"
        case .invalidBodies: "invalid_bodies"
        case .invalidJSON: "invalid_json"
        case .invalidReceipt: "invalid_receipt"
        case .receiptRejected: "receipt_rejected"
        case .invalidIssue: "invalid_issue"
        case .receiptAlreadyInUse: "receipt_already_in_use"
        case .appAccountTokenInUse: "app_account_token_in_use"
        case .unknownUser: "unknown_user"
        case .unknownPublication: "unknown_publication"
        case .unknownIssue: "unknown_issue"
        case .unknownAppAccountToken: "unknown_app_account_token"
        case .notStored, .storeUnavailable: "store_unavailable"
        case .invalidTransactionId: "invalid_transaction_id"
        case .appStoreServerAPINotConfigured: "app_store_server_api_not_configured"
        case .appStoreServerAPIKeyRefused: "app_store_server_api_key_refused"
        case .transactionNotFound: "transaction_not_found"
        case .appleSignedDataRefused: "apple_signed_data_refused"
        case .appStoreServerAPIFailed: "app_store_server_api_unavailable"
        case .tooManyRestores: "too_many_restores"
        case .restoreTimedOut: "restore_timeout"
        case .subscriptionNotInHistory: "subscription_not_in_history"
        }
    }

    /// What went wrong, for people.
    var message: String {
        switch self {
        case .hinted(let error, let hint): "\(error.message); \(hint)"
        case .http(let error): error.message
        case .noRoute(let method, let path): "no route for \(method) \(path)"
        case .methodNotAllowed(let allowed): "use \(allowed.joined(separator: ", "))"
        case .unauthorized: "a valid Authorization: Bearer token is required"
        case .adminTokenRequired: "this route needs the admin token"
        case .wrongSharedSecret: "the notification password does not match the shared secret"
        case .notificationRefused(let error): "the signed notification was refused: \(error.description)"
        case .signedDataNotConfigured: "signed data is refused: no appStoreBundleId is configured to check it against"
        case .signedDataRefused(let error): "the signed data was refused: \(error.description)"
        case .notSignedTransactions: #"expected a signed-transactions document: {"signedTransactions": ["…"], "signedRenewalInfos": ["…"]}"#
        case .invalidPathIdentifier(let kind, let rule): "the \(kind.name) \(rule)"
        case .invalidAt: "at must be an RFC 3339 instant such as 2020-07-02T00:00:00Z"
        case .invalidEnvironment: "environment must be production or sandbox"
        case .invalidWindow: "within must be a number followed by d, h, m or s, such as 3d"
        case .invalidLimit(let max): "limit must be a whole number from 1 to \(max)"
        case .invalidBodies: "bodies must be true or false"
        case .invalidJSON(let error): error.description
        case .invalidReceipt(let error), .receiptRejected(let error): error.description
        case .invalidIssue(let reason): reason
        case .receiptAlreadyInUse(let environment, let original): "subscription \(original) (\(environment)) is linked to another user"
        case .appAccountTokenInUse(let token): "app account token \(token) is linked to another user"
        case .unknownUser(let userId): "no receipt or app account token has been posted for user \(userId)"
        case .unknownPublication(let publicationId): "the catalog has no publication \(publicationId)"
        case .unknownIssue(let publicationId, let issueId): "publication \(publicationId) has no issue \(issueId)"
        case .unknownAppAccountToken(let userId, let token): "user \(userId) has no app account token \(token)"
        case .notStored(let what, let error): "the \(what) could not be stored: \(error)"
        case .storeUnavailable(let error): "\(error)"
        case .invalidTransactionId(let reason): reason
        case .appStoreServerAPINotConfigured(let reason): "restore needs the App Store Server API: \(reason)"
        case .appStoreServerAPIKeyRefused(let reason), .appleSignedDataRefused(let reason), .appStoreServerAPIFailed(let reason): reason
        case .transactionNotFound(let transactionId): "Apple knows no transaction \(transactionId), in production nor in the sandbox"
        case .tooManyRestores(let limit): "\(limit) restores are asking Apple already; try again shortly"
        case .restoreTimedOut(let reason): "the restore was not done within restoreTimeoutMilliseconds, and nothing is stored: \(reason)"
        case .subscriptionNotInHistory(let environment, let original):
            "Apple's transaction history has no transaction of subscription \(original) (\(environment))"
        }
    }

    /// The answer: `{"error": {"code": "…", "message": "…"}}` with the status; a 405 names the
    /// allowed methods in `Allow` (HEAD with GET); the HTTP layer's errors close the connection.
    var response: HTTPResponse {
        var writer = JSONWriter(capacity: 128)
        writer.beginObject()
        writer.key("error")
        writer.beginObject()
        writer.field("code", code)
        writer.field("message", message)
        writer.endObject()
        writer.endObject()
        var response = HTTPResponse.json(status, writer.bytes)
        switch self {
        case .methodNotAllowed(let allowed):
            response.headers.append(("Allow", (allowed.contains("GET") ? allowed + ["HEAD"] : allowed).joined(separator: ", ")))
        case .http:
            response.closeConnection = true
        default:
            break
        }
        return response
    }
}
