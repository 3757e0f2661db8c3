import MastheadFormats
import MastheadHTTP
import MastheadJSON

/// The errors any feature of the service may answer with: the HTTP layer's, the route and its
/// method, the tokens, the path's ids, the body's JSON, the store. A feature's own errors are its
/// own type (``NotificationError``, ``PurchaseError``, …); all render themselves as
/// ``ServiceFailure``s.
///
/// The HTTP layer's errors (``HTTPError``) are answered in the same shape, through
/// ``ServiceRouter/errorResponse``.
enum ServiceError: ServiceFailure {
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
    /// A path segment that is not a valid id of its kind, and the rule it breaks.
    case invalidPathIdentifier(PathIdentifier, rule: String)
    /// The body is not JSON.
    case invalidJSON(JSONError)
    /// No receipt or app account token has been posted for the user.
    case unknownUser(String)
    /// The catalog has no such publication.
    case unknownPublication(String)
    /// Signed data arrived while no `appStoreBundleId` is configured.
    case signedDataNotConfigured
    /// A write failed: what was not stored (`receipt`, `notification`, `issue`, `app account
    /// token`, `removal of the app account token`) and why.
    case notStored(String, any Error)
    /// A read from the database failed.
    case storeUnavailable(any Error)

    var rendering: (status: Int, code: String, message: String) {
        switch self {
        case .http(let error): (error.status, Self.code(of: error), error.message)
        case .noRoute(let method, let path): (404, "not_found", "no route for \(method) \(path)")
        case .methodNotAllowed(let allowed): (405, "method_not_allowed", "use \(allowed.joined(separator: ", "))")
        case .unauthorized: (401, "unauthorized", "a valid Authorization: Bearer token is required")
        case .adminTokenRequired: (403, "forbidden", "this route needs the admin token")
        case .invalidPathIdentifier(let kind, let rule): (400, kind.code, "the \(kind.name) \(rule)")
        case .invalidJSON(let error): (400, "invalid_json", error.description)
        case .unknownUser(let userId): (404, "unknown_user", "no receipt or app account token has been posted for user \(userId)")
        case .unknownPublication(let publicationId): (404, "unknown_publication", "the catalog has no publication \(publicationId)")
        case .signedDataNotConfigured:
            (503, "signed_data_not_configured", "signed data is refused: no appStoreBundleId is configured to check it against")
        case .notStored(let what, let error): (503, "store_unavailable", "the \(what) could not be stored: \(error)")
        case .storeUnavailable(let error): (503, "store_unavailable", "\(error)")
        }
    }

    /// The stable code of an error of the HTTP layer.
    private static func code(of error: HTTPError) -> String {
        switch error {
        case .invalidRequestLine, .invalidTarget, .invalidHeaderField, .obsoleteLineFolding, .invalidHeaderValue, .missingHost, .severalHosts,
            .invalidContentLength, .conflictingContentLength, .ambiguousFraming:
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
    }

    /// A 405 names the allowed methods in `Allow` (HEAD with GET).
    var headers: [(name: String, value: String)] {
        guard case .methodNotAllowed(let allowed) = self else { return [] }
        return [("Allow", (allowed.contains("GET") ? allowed + ["HEAD"] : allowed).joined(separator: ", "))]
    }

    /// The HTTP layer's errors close the connection.
    var closesConnection: Bool {
        if case .http = self { return true }
        return false
    }

    /// One for each HTTP error and each kind of path id, one of every other case.
    static var examples: [ServiceError] {
        let reason = FormatError.missingField(path: "$", line: 1)
        let http: [HTTPError] = [
            .invalidRequestLine, .invalidTarget, .targetTooLong(limit: 1), .unsupportedVersion, .invalidHeaderField, .obsoleteLineFolding,
            .invalidHeaderValue(name: "Host"), .missingHost, .severalHosts, .tooManyHeaderFields(limit: 1), .headerFieldTooLarge(limit: 1),
            .headersTooLarge(limit: 1), .invalidContentLength(""), .conflictingContentLength, .ambiguousFraming, .unsupportedTransferEncoding,
            .bodyTooLarge(limit: 1), .requestTimeout, .handlerTimeout, .tooManyConnections, .bodyBudgetExhausted(limit: 1),
        ]
        return http.map { .http($0) } + PathIdentifier.allCases.map { .invalidPathIdentifier($0, rule: "") } + [
            .noRoute(method: "GET", path: "/"), .methodNotAllowed(allowed: ["GET"]), .unauthorized, .adminTokenRequired,
            .invalidJSON(.tooLarge(bytes: 0)), .unknownUser(""), .unknownPublication(""), .signedDataNotConfigured, .notStored("", reason),
            .storeUnavailable(reason),
        ]
    }
}
