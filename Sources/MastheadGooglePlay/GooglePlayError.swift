/// Why Google Play could not be asked or believed, with what a person needs to act: the setting,
/// the service account's email, the endpoint, Google's status. Messages never hold a token (an
/// OIDC token, an access token, a purchase token) or a key.
public enum GooglePlayError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A Pub/Sub push request's `Authorization` was refused: nothing of the request may be applied.
    case pushRefused(PushRefusal)
    /// A JWKS document that holds no usable key, or is not a JWKS.
    case invalidJWKS(reason: String)
    /// Google's signing keys could not be fetched (from `url`), or are being fetched in the
    /// background, so a token signed with a key not yet known could not be checked: a temporary
    /// failure (the push may be delivered again later).
    case signingKeysUnavailable(url: String, reason: String)
    /// A service account key file that cannot be used: what is wrong (a missing field named;
    /// never the key's text).
    case invalidServiceAccount(reason: String)
    /// A base URL that cannot be used (`setting` names it): not https, or http while not allowed.
    case invalidBaseURL(setting: String, url: String)
    /// Google refused the service account (HTTP 401 or 403 from the API, or the token endpoint
    /// refused its assertion): the key was revoked, or the account lacks access to the app in the
    /// Play Console. `detail` is Google's own error text when it gave one.
    case notAuthorized(endpoint: String, status: Int, account: String, detail: String?)
    /// Google does not know the purchase (HTTP 404 or 410).
    case purchaseNotFound(endpoint: String, status: Int)
    /// Google refused the request itself (another 4xx), with its message.
    case refused(endpoint: String, status: Int, detail: String?)
    /// Google kept answering 429 at every attempt.
    case rateLimited(endpoint: String, attempts: Int, retryAfterSeconds: Int?)
    /// The network failed, or Google answered 5xx, at every attempt; `last` says how the last one ended.
    case unavailable(endpoint: String, attempts: Int, last: String)
    /// An answer larger than the transport takes.
    case answerTooLarge(endpoint: String, limit: Int)
    /// An answer that is not what the endpoint sends (the token endpoint's JSON).
    case unreadableAnswer(endpoint: String, reason: String)
    /// A request not sent: what is wrong with it (an empty path segment, say).
    case invalidRequest(endpoint: String, reason: String)

    public var description: String {
        switch self {
        case .pushRefused(let refusal): "Pub/Sub push authentication refused: \(refusal)"
        case .invalidJWKS(let reason): "invalid JWKS: \(reason)"
        case .signingKeysUnavailable(let url, let reason): "Google's signing keys could not be fetched from \(url): \(reason)"
        case .invalidServiceAccount(let reason): "Google Play service account key file: \(reason)"
        case .invalidBaseURL(let setting, let url):
            "\(setting) must be an https URL (http only when googlePlayAllowHTTP is set, for tests), not \"\(url)\""
        case .notAuthorized(let endpoint, let status, let account, let detail):
            "\(endpoint): Google refused the service account \(account) (HTTP \(status)\(detail.map { ": \($0)" } ?? "")): check that its key is "
                + "active and that the account has access to the app in the Play Console"
        case .purchaseNotFound(let endpoint, let status): "\(endpoint): no such purchase (HTTP \(status))"
        case .refused(let endpoint, let status, let detail): "\(endpoint): HTTP \(status)\(detail.map { ": \($0)" } ?? "")"
        case .rateLimited(let endpoint, let attempts, let retryAfter):
            "\(endpoint): rate limited (HTTP 429) after \(attempts) attempt(s)" + (retryAfter.map { ", Retry-After \($0) s" } ?? "")
        case .unavailable(let endpoint, let attempts, let last): "\(endpoint): unavailable after \(attempts) attempt(s): \(last)"
        case .answerTooLarge(let endpoint, let limit): "\(endpoint): answer larger than \(limit) bytes"
        case .unreadableAnswer(let endpoint, let reason): "\(endpoint): unreadable answer: \(reason)"
        case .invalidRequest(let endpoint, let reason): "\(endpoint): not sent: \(reason)"
        }
    }
}

/// Why a Pub/Sub push request's OIDC token was refused. Each names the claim or part at fault
/// and what was found when that is not secret (never the token itself).
public enum PushRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    /// No `Authorization` header field.
    case missingAuthorization
    /// An `Authorization` that is not `Bearer` and a token.
    case notBearer
    /// A token longer than ``PubSubPushVerifier/maxTokenBytes``.
    case tooLarge(bytes: Int)
    /// A token that is not three base64url parts of JSON objects: `part` says which, `reason` why.
    case malformed(part: String, reason: String)
    /// An `alg` other than `RS256` (`none`, `HS256` and `ES256` included).
    case unsupportedAlgorithm(String)
    /// A `kid` Google's keys do not hold, even after asking Google for its current keys (or while
    /// asking again is rate limited).
    case unknownKey(id: String)
    /// The signature does not verify with the key `kid` names.
    case badSignature
    /// A claim that is absent or of the wrong JSON type.
    case missingClaim(String)
    /// An `iss` that is not Google's.
    case wrongIssuer(String)
    /// An `aud` that is not the configured audience.
    case wrongAudience(String)
    /// An `email` that is not the configured push service account.
    case wrongEmail(String)
    /// `email_verified` is not `true`.
    case emailNotVerified
    /// `exp` (seconds since 1970) has passed, beyond the allowed skew.
    case expired(exp: Int64)
    /// `iat` or `nbf` (seconds since 1970) is still in the future, beyond the allowed skew.
    case notYetValid(notBefore: Int64)

    public var description: String {
        switch self {
        case .missingAuthorization: "no Authorization header field"
        case .notBearer: "the Authorization header field is not a Bearer token"
        case .tooLarge(let bytes): "the token is \(bytes) bytes; at most \(PubSubPushVerifier.maxTokenBytes) are accepted"
        case .malformed(let part, let reason): "malformed token: the \(part) \(reason)"
        case .unsupportedAlgorithm(let algorithm): "unsupported algorithm \"\(algorithm)\": only RS256 is accepted"
        case .unknownKey(let id): "no Google signing key has the kid \"\(id)\""
        case .badSignature: "the RS256 signature does not verify with the key its kid names"
        case .missingClaim(let claim): "the claim \(claim) is missing or of the wrong type"
        case .wrongIssuer(let issuer): "iss \"\(issuer)\" is not https://accounts.google.com"
        case .wrongAudience(let audience): "aud \"\(audience)\" is not the configured audience"
        case .wrongEmail(let email): "email \"\(email)\" is not the configured push service account"
        case .emailNotVerified: "email_verified is not true"
        case .expired(let exp): "the token expired at \(exp) (seconds since 1970)"
        case .notYetValid(let notBefore): "the token is valid only from \(notBefore) (seconds since 1970)"
        }
    }
}
