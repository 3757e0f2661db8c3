import Foundation
import Masthead
import MastheadClock
import MastheadFormats
import Synchronization

/// One request of the App Store Server API client, and how it is retried.
extension AppStoreServerAPIClient {
    /// An endpoint's request: method, path, query, body.
    struct Endpoint {
        var method: String
        var path: String
        var query: [(String, String)] = []
        var body: [UInt8] = []
        /// The page of a paginated call, from 1.
        var page = 1
        /// Whether Apple's "transaction id not found" in production is asked again in the sandbox.
        var fallsBackToSandbox = false
        /// When the call must have ended, on the monotonic clock: no request, retry or wait goes past it.
        var deadline: Int64?

        /// `GET /inApps/v1/transactions/1 (Production)`, naming the page past the first, for errors.
        func name(_ environment: Environment) -> String {
            "\(method) \(path) (\(environment == .production ? "Production" : "Sandbox")\(page > 1 ? ", page \(page)" : ""))"
        }

        /// A path segment, percent-encoded.
        static func segment(_ text: String) -> String {
            var allowed = CharacterSet.urlPathAllowed
            allowed.remove(charactersIn: "/;?#%")
            return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
        }

        /// The query, percent-encoded.
        var queryText: String {
            var allowed = CharacterSet.urlQueryAllowed
            allowed.remove(charactersIn: "&=+#%")
            return query.map { name, value in name + "=" + (value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value) }.joined(separator: "&")
        }
    }

    /// A successful answer's body, and the server that gave it.
    struct Answer {
        var body: [UInt8]
        var environment: Environment
    }

    /// Apple's error codes for a transaction id it does not know (OriginalTransactionIdNotFound,
    /// TransactionIdNotFound): asked again in the sandbox when the call falls back.
    static let notFoundCodes: Set<Int64> = [4_040_005, 4_040_010]
    /// Apple's 404 error codes that say to try again (AccountNotFoundRetryable,
    /// AppNotFoundRetryable, OriginalTransactionIdNotFoundRetryable): retried with the backoff.
    static let retryableNotFoundCodes: Set<Int64> = [4_040_002, 4_040_004, 4_040_006]

    /// Sends `endpoint` to `environment`'s server until it answers 2xx, retrying 429, 5xx,
    /// Apple's retryable 404s and network failures, and moving once from production to the
    /// sandbox on "not found" when the endpoint falls back.
    ///
    /// A 401 or 403 drops the token and, unless it answered a fallback request, is remembered for
    /// `environment` during ``refusalMemoryMilliseconds``: calls to it fail with the same error
    /// without asking Apple until then.
    ///
    /// No exchange, and no wait before a retry, goes past the endpoint's deadline: when it comes
    /// first, the call fails with ``AppStoreError/timedOut(endpoint:last:)``.
    func send(_ endpoint: Endpoint, environment: Environment) throws(AppStoreError) -> Answer {
        if let refused = refusals.withLock({ $0[environment] }), refused.until > now() { throw refused.error }
        var server = environment
        var attempt = 0
        var last: String?
        while true {
            attempt += 1
            if let deadline = endpoint.deadline, SystemClock.monotonicMilliseconds() >= deadline {
                throw .timedOut(endpoint: endpoint.name(server), last: last)
            }
            let base = server == .production ? configuration.productionURL : configuration.sandboxURL
            var url = (base.hasSuffix("/") ? String(base.dropLast()) : base) + endpoint.path
            if !endpoint.query.isEmpty { url += "?" + endpoint.queryText }
            let token = try tokens.token()
            var headers = [("Authorization", "Bearer " + token), ("Accept", "application/json")]
            if !endpoint.body.isEmpty { headers.append(("Content-Type", "application/json")) }
            let name = endpoint.name(server)
            let response: HTTPSTransport.Response
            let request = HTTPSTransport.Request(method: endpoint.method, url: url, headers: headers, body: endpoint.body)
            switch transport.send(request, deadline: endpoint.deadline) {
            case .failure(.tooLarge(_, let limit)): throw .answerTooLarge(endpoint: name, limit: limit)
            case .failure(let failure):
                last = failure.description
                if let deadline = endpoint.deadline, SystemClock.monotonicMilliseconds() >= deadline { throw .timedOut(endpoint: name, last: last) }
                guard attempt < configuration.attempts else { throw .unavailable(endpoint: name, attempts: attempt, last: failure.description) }
                try pause(backoff(attempt), endpoint, name, last)
                continue
            case .success(let answer): response = answer
            }
            if (200..<300).contains(response.status) { return Answer(body: response.body, environment: server) }
            let error = try? ErrorPayload(decoding: response.body)
            switch response.status {
            case 401, 403:
                let refused = AppStoreError.notAuthorized(
                    status: response.status, keyId: tokens.credentials.keyId, issuerId: tokens.credentials.issuerId, bundleId: tokens.bundleId,
                    errorCode: error?.errorCode, errorMessage: error?.errorMessage)
                tokens.discard(token)
                if server == environment {
                    let until = now() + Self.refusalMemoryMilliseconds
                    refusals.withLock { $0[server] = (refused, until) }
                }
                throw refused
            case 404 where endpoint.fallsBackToSandbox && server == .production && error?.errorCode.map(Self.notFoundCodes.contains) == true:
                server = .sandbox
                attempt = 0
            case 429:
                let retryAfter = response.retryAfterSeconds
                // A Retry-After too large to count in milliseconds is past any cap.
                let asked = retryAfter.map { $0.multipliedReportingOverflow(by: 1000) }.map { $0.overflow ? Int.max : $0.partialValue } ?? 0
                let wait = max(backoff(attempt), asked)
                guard attempt < configuration.attempts, wait <= configuration.maxWaitMilliseconds else {
                    throw .rateLimited(endpoint: name, attempts: attempt, retryAfterSeconds: retryAfter)
                }
                last = "HTTP 429"
                try pause(wait, endpoint, name, last)
            case 404 where error?.errorCode.map(Self.retryableNotFoundCodes.contains) == true, 500...:
                let failure = "HTTP \(response.status)" + (error?.errorCode.map { ", error \($0)" } ?? "")
                guard attempt < configuration.attempts else {
                    throw .unavailable(endpoint: name, attempts: attempt, last: failure)
                }
                last = failure
                try pause(backoff(attempt), endpoint, name, last)
            default:
                throw .refused(endpoint: name, status: response.status, errorCode: error?.errorCode, errorMessage: error?.errorMessage)
            }
        }
    }

    /// Waits `milliseconds` before a retry, unless the endpoint's deadline comes first.
    /// - Throws: ``AppStoreError/timedOut(endpoint:last:)`` when the wait would end past the deadline.
    private func pause(_ milliseconds: Int, _ endpoint: Endpoint, _ name: String, _ last: String?) throws(AppStoreError) {
        if let deadline = endpoint.deadline, SystemClock.monotonicMilliseconds() + Int64(milliseconds) >= deadline {
            throw .timedOut(endpoint: name, last: last)
        }
        sleep(milliseconds)
    }

    /// The wait before retry `attempt + 1`: the backoff doubled per attempt, capped (a doubling
    /// past the cap stops at the cap rather than overflowing).
    func backoff(_ attempt: Int) -> Int {
        let cap = configuration.maxWaitMilliseconds
        let shift = min(max(attempt - 1, 0), 20)
        return configuration.backoffMilliseconds > cap >> shift ? cap : min(configuration.backoffMilliseconds << shift, cap)
    }
}
