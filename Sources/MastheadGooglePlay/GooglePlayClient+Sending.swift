import MastheadAppStore
import MastheadClock
import MastheadJSON

/// One request of the Play Developer API client, and how it is retried.
extension GooglePlayClient {
    /// Sends `method path` (path and query, percent-encoded) to ``apiURL`` until it answers 2xx;
    /// the body then. Every exchange, wait and the access token's request end by one deadline,
    /// ``Retries/deadlineMilliseconds`` from the call's start; a 401 is tried once more with a new
    /// access token.
    func send(method: String, path: String, endpoint: String) throws(GooglePlayError) -> [UInt8] {
        try Self.checkURL(apiURL, setting: "googlePlayAPIURL", allowHTTP: allowHTTP)
        let deadline = SystemClock.monotonicMilliseconds() + Int64(retries.deadlineMilliseconds)
        var attempt = 0
        var renewedAfter401 = false
        while true {
            attempt += 1
            let token = try tokens.token(deadline: deadline)
            let request = HTTPSTransport.Request(
                method: method, url: apiURL + path, headers: [("Authorization", "Bearer " + token), ("Accept", "application/json")])
            let response: HTTPSTransport.Response
            switch transport.send(request, deadline: deadline) {
            case .failure(.tooLarge(_, let limit)): throw .answerTooLarge(endpoint: endpoint, limit: limit)
            case .failure(.invalidURL): throw .invalidBaseURL(setting: "googlePlayAPIURL", url: apiURL)
            case .failure(let failure):
                // The description names the URL, which holds the purchase token: not repeated.
                let last = Self.failureText(failure)
                try Self.pause(Self.backoff(attempt, retries), attempt, retries, deadline, sleep) { .unavailable(endpoint: endpoint, attempts: attempt, last: last) }
                continue
            case .success(let answer): response = answer
            }
            switch response.status {
            case 200..<300: return response.body
            case 401 where !renewedAfter401:
                // The token may have been revoked or expired early: once more with a new one.
                tokens.discard(token)
                renewedAfter401 = true
                attempt -= 1
            case 401, 403:
                tokens.discard(token)
                throw .notAuthorized(endpoint: endpoint, status: response.status, account: account.clientEmail, detail: Self.googleMessage(response.body))
            case 404, 410: throw .purchaseNotFound(endpoint: endpoint, status: response.status)
            case 429:
                try Self.pause(Self.wait(attempt, retryAfter: response.retryAfterSeconds, retries), attempt, retries, deadline, sleep) {
                    .rateLimited(endpoint: endpoint, attempts: attempt, retryAfterSeconds: response.retryAfterSeconds)
                }
            case 500...:
                try Self.pause(Self.backoff(attempt, retries), attempt, retries, deadline, sleep) {
                    .unavailable(endpoint: endpoint, attempts: attempt, last: "HTTP \(response.status)" + (Self.googleMessage(response.body).map { ": \($0)" } ?? ""))
                }
            default:
                throw .refused(endpoint: endpoint, status: response.status, detail: Self.googleMessage(response.body))
            }
        }
    }

    /// Waits `milliseconds` before try `attempt + 1`, or throws `failure` when `attempt` was the
    /// last try or the wait would end at or past `deadline` (monotonic milliseconds).
    static func pause(
        _ milliseconds: Int, _ attempt: Int, _ retries: Retries, _ deadline: Int64?, _ sleep: (Int) -> Void, _ failure: () -> GooglePlayError
    ) throws(GooglePlayError) {
        guard attempt < retries.attempts else { throw failure() }
        if let deadline, SystemClock.monotonicMilliseconds() + Int64(milliseconds) >= deadline { throw failure() }
        sleep(milliseconds)
    }

    /// The wait before try `attempt + 1`: the backoff doubled per try, capped.
    static func backoff(_ attempt: Int, _ retries: Retries) -> Int {
        let cap = retries.maxWaitMilliseconds
        let shift = min(max(attempt - 1, 0), 20)
        return retries.backoffMilliseconds > cap >> shift ? cap : min(retries.backoffMilliseconds << shift, cap)
    }

    /// The wait after a 429: what `Retry-After` asks (cut to the cap), else the backoff.
    static func wait(_ attempt: Int, retryAfter: Int?, _ retries: Retries) -> Int {
        guard let retryAfter else { return backoff(attempt, retries) }
        let (milliseconds, overflow) = retryAfter.multipliedReportingOverflow(by: 1000)
        return overflow ? retries.maxWaitMilliseconds : min(milliseconds, retries.maxWaitMilliseconds)
    }

    /// How an exchange failed, without its URL.
    static func failureText(_ failure: HTTPSTransport.TransportFailure) -> String {
        switch failure {
        case .invalidURL: "invalid URL"
        case .network(_, let reason): "network: \(reason)"
        case .timedOut(_, let milliseconds): "no complete answer within \(milliseconds) ms"
        case .tooLarge(_, let limit): "answer larger than \(limit) bytes"
        }
    }

    /// Google's error text in an answer: `error.message` of `{"error": {"code", "message",
    /// "status"}}`, or the OAuth `error` and `error_description`; at most 200 characters, controls
    /// escaped. Nil when the body says nothing readable.
    static func googleMessage(_ body: [UInt8]) -> String? {
        guard body.count <= 64 << 10, let document = try? JSONDocument(parsing: body, maxDepth: 16), document.root.kind == .object else { return nil }
        let root = document.root
        var text: String?
        if let error = root.member("error"), error.kind == .object {
            text = [error.member("status")?.string, error.member("message")?.string].compactMap { $0 }.joined(separator: ": ")
        } else if let error = root.member("error")?.string {
            text = error + (root.member("error_description")?.string.map { ": " + $0 } ?? "")
        }
        guard let text, !text.isEmpty else { return nil }
        return PeerText.shown(text, limit: 200)
    }
}
