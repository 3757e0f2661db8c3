public import MastheadFormats

/// Why the App Store Server API client could not answer, with what a person needs to act: the
/// endpoint, Apple's status and error code, the key id (never the key), the JSON path of a
/// refused token.
public enum AppStoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A base URL that cannot be used (`setting` names it): not https, or http while not allowed.
    case invalidBaseURL(setting: String, url: String)
    /// Credentials that cannot be used: what is wrong with them (never the key's bytes).
    case invalidCredentials(String)
    /// Apple refused the request's token (HTTP 401 or 403): the key id, the issuer id or the
    /// bundle id is wrong, or the key was revoked. Later calls of the same client to the same
    /// environment fail with this error without asking Apple for 5 minutes.
    case notAuthorized(status: Int, keyId: String, issuerId: String, bundleId: String, errorCode: Int64?, errorMessage: String?)
    /// Apple refused the request itself (another 4xx), with its error code and message.
    case refused(endpoint: String, status: Int, errorCode: Int64?, errorMessage: String?)
    /// Apple kept answering 429: a `Retry-After` past the wait cap, or no attempt left.
    case rateLimited(endpoint: String, attempts: Int, retryAfterSeconds: Int?)
    /// The network failed, or Apple answered 5xx, at every attempt; `last` says how the last one ended.
    case unavailable(endpoint: String, attempts: Int, last: String)
    /// The call's deadline passed before Apple's answers were all in (`last` says how the last
    /// attempt ended, when one failed); the exchange under way was cancelled.
    case timedOut(endpoint: String, last: String?)
    /// An answer larger than the transport takes, or the pages of one call together larger than
    /// ``AppStoreServerAPIClient/Configuration/maxTotalBytes``.
    case answerTooLarge(endpoint: String, limit: Int)
    /// An answer that is not the endpoint's JSON shape.
    case unreadableAnswer(endpoint: String, reason: FormatError)
    /// A signed token in the answer was refused (its path and reason are in `reason`); nothing of
    /// the answer is used.
    case signedDataRefused(endpoint: String, reason: FormatError)
    /// An answer that says there is more (`hasMore`) past the page limit, without the token of
    /// the next page, or with a token already followed.
    case pagination(endpoint: String, reason: String)
    /// A request Apple would refuse, not sent: what is wrong with it.
    case invalidRequest(endpoint: String, reason: String)

    /// Whether Apple answered that it does not know the transaction id (error 4040005 or
    /// 4040010), in the sandbox too when the call fell back to it.
    public var isTransactionNotFound: Bool {
        guard case .refused(_, 404, let errorCode?, _) = self else { return false }
        return AppStoreServerAPIClient.notFoundCodes.contains(errorCode)
    }

    public var description: String {
        switch self {
        case .invalidBaseURL(let setting, let url):
            "\(setting) must be an https URL (http only when appStoreServerAPIAllowHTTP is set, for tests), not \"\(url)\""
        case .invalidCredentials(let reason): "App Store Server API credentials: \(reason)"
        case .notAuthorized(let status, let keyId, let issuerId, let bundleId, let errorCode, let errorMessage):
            "App Store Server API refused the token (HTTP \(status)\(Self.apple(errorCode, errorMessage))): check the key id \(keyId), "
                + "the issuer id \(issuerId), the bundle id \(bundleId) and that the key is an active In-App Purchase key"
        case .refused(let endpoint, let status, let errorCode, let errorMessage): "\(endpoint): HTTP \(status)\(Self.apple(errorCode, errorMessage))"
        case .rateLimited(let endpoint, let attempts, let retryAfter):
            "\(endpoint): rate limited (HTTP 429) after \(attempts) attempt(s)" + (retryAfter.map { ", Retry-After \($0) s" } ?? "")
        case .unavailable(let endpoint, let attempts, let last): "\(endpoint): unavailable after \(attempts) attempt(s): \(last)"
        case .timedOut(let endpoint, let last): "\(endpoint): no answer before the call's deadline" + (last.map { " (last attempt: \($0))" } ?? "")
        case .answerTooLarge(let endpoint, let limit): "\(endpoint): answer larger than \(limit) bytes"
        case .unreadableAnswer(let endpoint, let reason): "\(endpoint): unreadable answer: \(reason)"
        case .signedDataRefused(let endpoint, let reason): "\(endpoint): \(reason)"
        case .pagination(let endpoint, let reason): "\(endpoint): \(reason)"
        case .invalidRequest(let endpoint, let reason): "\(endpoint): not sent: \(reason)"
        }
    }

    /// `, error 4040010 (TransactionIdNotFoundError): Transaction id not found.` when Apple gave
    /// them (the name when the code is one ``appleErrorNames`` knows).
    private static func apple(_ code: Int64?, _ message: String?) -> String {
        let named = { (code: Int64) in Self.appleErrorNames[code].map { "\(code) (\($0))" } ?? "\(code)" }
        return switch (code, message) {
        case (let code?, let message?): ", error \(named(code)): \(message)"
        case (let code?, nil): ", error \(named(code))"
        case (nil, let message?): ": \(message)"
        case (nil, nil): ""
        }
    }
}
