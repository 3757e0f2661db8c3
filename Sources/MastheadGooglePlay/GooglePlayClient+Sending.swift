import MastheadAppStore
import MastheadJSON

/// One request of the Play Developer API client, and how it is retried.
extension GooglePlayClient {
    /// Sends `method path` (path and query, percent-encoded) to ``apiURL`` until it answers 2xx;
    /// the body then.
    func send(method: String, path: String, endpoint: String) throws(GooglePlayError) -> [UInt8] {
        try Self.checkURL(apiURL, setting: "googlePlayAPIURL", allowHTTP: allowHTTP)
        var attempt = 0
        while true {
            attempt += 1
            let token = try tokens.token()
            let request = HTTPSTransport.Request(
                method: method, url: apiURL + path, headers: [("Authorization", "Bearer " + token), ("Accept", "application/json")])
            let response: HTTPSTransport.Response
            switch transport.send(request) {
            case .failure(.tooLarge(_, let limit)): throw .answerTooLarge(endpoint: endpoint, limit: limit)
            case .failure(let failure):
                // The description names the URL, which holds the purchase token: not repeated.
                let last = Self.failureText(failure)
                guard attempt < retries.attempts else { throw .unavailable(endpoint: endpoint, attempts: attempt, last: last) }
                sleep(Self.backoff(attempt, retries))
                continue
            case .success(let answer): response = answer
            }
            switch response.status {
            case 200..<300: return response.body
            case 401, 403:
                tokens.discard(token)
                throw .notAuthorized(endpoint: endpoint, status: response.status, account: account.clientEmail, detail: Self.googleMessage(response.body))
            case 404, 410: throw .purchaseNotFound(endpoint: endpoint, status: response.status)
            case 429:
                guard attempt < retries.attempts else {
                    throw .rateLimited(endpoint: endpoint, attempts: attempt, retryAfterSeconds: response.retryAfterSeconds)
                }
                sleep(Self.wait(attempt, retryAfter: response.retryAfterSeconds, retries))
            case 500...:
                guard attempt < retries.attempts else {
                    throw .unavailable(endpoint: endpoint, attempts: attempt, last: "HTTP \(response.status)" + (Self.googleMessage(response.body).map { ": \($0)" } ?? ""))
                }
                sleep(Self.backoff(attempt, retries))
            default:
                throw .refused(endpoint: endpoint, status: response.status, detail: Self.googleMessage(response.body))
            }
        }
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
