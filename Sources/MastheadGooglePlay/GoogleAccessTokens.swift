import Dispatch
import Masthead
import MastheadAppStore
import MastheadClock
import MastheadCrypto
import MastheadJSON
import Synchronization

/// Access tokens for the Play Developer API, by the OAuth 2.0 JWT-bearer grant (RFC 7523) as
/// Google documents it for service accounts.
///
/// A token is asked by POSTing `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer` and an
/// `assertion` to the token URL: a JWT with the header `{"alg":"RS256","typ":"JWT","kid":
/// private_key_id}` and the claims `iss` (the client email), `scope`
/// (`https://www.googleapis.com/auth/androidpublisher`), `aud` (the token URL), `iat` (now) and
/// `exp` (an hour later), signed with the account's key. The answer's `access_token` is used
/// until ``renewalMarginSeconds`` before its `expires_in` ends (a token of 2 minutes or less:
/// until half its life is left); then the first caller asks for a new one while the others wait
/// for its outcome, success or failure (one request at a time, no lock held while it is under
/// way), and callers with a usable token never wait. A failure is given to every call for
/// ``failureCacheSeconds`` after it, without asking again. 429, 5xx and network failures are
/// retried as the client's requests are, within the call's deadline; a 400, 401 or 403
/// (`invalid_grant`, a revoked key) is
/// ``GooglePlayError/notAuthorized(endpoint:status:account:detail:)`` naming the account.
public final class GoogleAccessTokens: Sendable {
    /// The scope the tokens are asked for.
    public static let scope = "https://www.googleapis.com/auth/androidpublisher"
    /// The grant type of the JWT-bearer grant.
    public static let grantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"
    /// How long an assertion is valid (Google accepts at most an hour).
    public static let assertionLifetimeSeconds: Int64 = 3600
    /// A token with less than this left is not used again.
    public static let renewalMarginSeconds: Int64 = 60
    /// How long a failure to get a token is answered again without asking.
    public static let failureCacheSeconds: Int64 = 10
    /// The name of the token endpoint in errors.
    static let endpoint = "OAuth 2.0 token (JWT-bearer grant)"

    let account: GoogleServiceAccount
    let tokenURL: String
    let allowHTTP: Bool
    let transport: HTTPSTransport
    let clock: @Sendable () -> Instant
    let retries: GooglePlayClient.Retries
    let sleep: @Sendable (Int) -> Void
    private let state = Mutex(State())

    /// The token in use, the last failure, the request under way.
    private struct State {
        /// The token in use and when it stops being used.
        var current: (token: String, renewAt: Instant)?
        /// The last failure and when it stops being answered.
        var failure: (error: GooglePlayError, until: Instant)?
        /// The request under way, whose outcome every caller waiting shares.
        var asking: Asking?
    }

    /// One request for a token, and its outcome once known.
    private final class Asking: Sendable {
        private let done = DispatchGroup()
        private let outcome = Mutex<Result<String, GooglePlayError>?>(nil)

        init() { done.enter() }

        func finish(_ result: Result<String, GooglePlayError>) {
            outcome.withLock { $0 = result }
            done.leave()
        }

        /// The outcome, waiting for it until `deadline` (monotonic milliseconds) at most; nil past it.
        func wait(until deadline: Int64?) -> Result<String, GooglePlayError>? {
            if let deadline {
                let left = deadline - SystemClock.monotonicMilliseconds()
                guard left > 0, done.wait(timeout: .now() + .milliseconds(Int(clamping: left))) == .success else { return nil }
            } else {
                done.wait()
            }
            return outcome.withLock { $0 }
        }
    }

    init(
        account: GoogleServiceAccount, tokenURL: String, allowHTTP: Bool, transport: HTTPSTransport, clock: @escaping @Sendable () -> Instant,
        retries: GooglePlayClient.Retries, sleep: @escaping @Sendable (Int) -> Void
    ) {
        self.account = account
        self.tokenURL = tokenURL
        self.allowHTTP = allowHTTP
        self.transport = transport
        self.clock = clock
        self.retries = retries
        self.sleep = sleep
    }

    /// A usable access token: the cached one, the one another caller is asking for, or a new one.
    /// - Parameter deadline: the latest end of the wait and the request (monotonic milliseconds).
    func token(deadline: Int64? = nil) throws(GooglePlayError) -> String {
        let now = clock()
        enum Next { case answer(Result<String, GooglePlayError>), wait(Asking), ask(Asking) }
        let next: Next = state.withLock { state in
            if let current = state.current, now < current.renewAt { return .answer(.success(current.token)) }
            if let failure = state.failure, now < failure.until { return .answer(.failure(failure.error)) }
            if let asking = state.asking { return .wait(asking) }
            let asking = Asking()
            state.asking = asking
            return .ask(asking)
        }
        switch next {
        case .answer(let result): return try result.get()
        case .wait(let asking):
            guard let result = asking.wait(until: deadline) else {
                throw .unavailable(endpoint: Self.endpoint, attempts: 0, last: "no access token before the call's deadline")
            }
            return try result.get()
        case .ask(let asking):
            let result: Result<String, GooglePlayError>
            do throws(GooglePlayError) {
                let (token, expiresIn) = try fetch(deadline: deadline)
                let margin = min(Self.renewalMarginSeconds, expiresIn / 2)
                let renewAt = clock().adding(milliseconds: (expiresIn - margin) * 1000)
                result = .success(token)
                state.withLock { state in
                    state.current = (token, renewAt)
                    state.failure = nil
                    state.asking = nil
                }
            } catch {
                let until = clock().adding(milliseconds: Self.failureCacheSeconds * 1000)
                result = .failure(error)
                state.withLock { state in
                    state.failure = (error, until)
                    state.asking = nil
                }
            }
            asking.finish(result)
            return try result.get()
        }
    }

    /// Drops `token` when it is the one in use (Google refused it): the next call asks for a new one.
    func discard(_ token: String) {
        state.withLock { state in
            if let current = state.current, current.token.sameBytes(as: token) { state.current = nil }
        }
    }

    /// The signed assertion for a request at `now`.
    func assertion(now: Instant) throws(GooglePlayError) -> String {
        var header = JSONWriter()
        header.beginObject()
        header.field("alg", "RS256")
        header.field("typ", "JWT")
        header.field("kid", account.privateKeyId)
        header.endObject()
        let issued = now.milliseconds / 1000
        var claims = JSONWriter()
        claims.beginObject()
        claims.field("iss", account.clientEmail)
        claims.field("scope", Self.scope)
        claims.field("aud", tokenURL)
        claims.field("iat", issued)
        claims.field("exp", issued + Self.assertionLifetimeSeconds)
        claims.endObject()
        let signingInput = Base64.encode(header.bytes, .url) + "." + Base64.encode(claims.bytes, .url)
        do {
            let signature = try RS256.sign(Array(signingInput.utf8), with: account.privateKey)
            return signingInput + "." + Base64.encode(signature, .url)
        } catch {
            throw .invalidServiceAccount(reason: "the key \(account.privateKeyId) of \(account.clientEmail) cannot sign: \(error)")
        }
    }

    /// Asks the token endpoint for a token; the token and its lifetime in seconds.
    private func fetch(deadline: Int64?) throws(GooglePlayError) -> (String, Int64) {
        try GooglePlayClient.checkURL(tokenURL, setting: "googlePlayTokenURL", allowHTTP: allowHTTP)
        var attempt = 0
        while true {
            attempt += 1
            let assertion = try assertion(now: clock())
            let body = "grant_type=" + GooglePlayClient.encoded(Self.grantType) + "&assertion=" + GooglePlayClient.encoded(assertion)
            let request = HTTPSTransport.Request(
                method: "POST", url: tokenURL, headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json")],
                body: Array(body.utf8))
            let response: HTTPSTransport.Response
            switch transport.send(request, deadline: deadline) {
            case .failure(.tooLarge(_, let limit)): throw .answerTooLarge(endpoint: Self.endpoint, limit: limit)
            case .failure(.invalidURL): throw .invalidBaseURL(setting: "googlePlayTokenURL", url: tokenURL)
            case .failure(let failure):
                let last = GooglePlayClient.failureText(failure)
                try GooglePlayClient.pause(GooglePlayClient.backoff(attempt, retries), attempt, retries, deadline, sleep) {
                    .unavailable(endpoint: Self.endpoint, attempts: attempt, last: last)
                }
                continue
            case .success(let answer): response = answer
            }
            switch response.status {
            case 200: return try Self.read(response.body)
            case 400, 401, 403:
                throw .notAuthorized(
                    endpoint: Self.endpoint, status: response.status, account: account.clientEmail, detail: GooglePlayClient.googleMessage(response.body))
            case 429:
                try GooglePlayClient.pause(GooglePlayClient.wait(attempt, retryAfter: response.retryAfterSeconds, retries), attempt, retries, deadline, sleep) {
                    .rateLimited(endpoint: Self.endpoint, attempts: attempt, retryAfterSeconds: response.retryAfterSeconds)
                }
            case 500...:
                try GooglePlayClient.pause(GooglePlayClient.backoff(attempt, retries), attempt, retries, deadline, sleep) {
                    .unavailable(endpoint: Self.endpoint, attempts: attempt, last: "HTTP \(response.status)")
                }
            default:
                throw .refused(endpoint: Self.endpoint, status: response.status, detail: GooglePlayClient.googleMessage(response.body))
            }
        }
    }

    /// The token and lifetime of a 200 answer: `access_token` (visible ASCII, as a header field
    /// carries it), `expires_in` (1 s to a day), `token_type` `Bearer` when present.
    static func read(_ body: [UInt8]) throws(GooglePlayError) -> (String, Int64) {
        let document: JSONDocument
        do { document = try JSONDocument(parsing: body, maxDepth: 16) } catch {
            throw .unreadableAnswer(endpoint: endpoint, reason: PeerText.shown("\(error)", limit: 200))
        }
        let root = document.root
        guard root.kind == .object else { throw .unreadableAnswer(endpoint: endpoint, reason: "$ is not a JSON object") }
        guard let token = root.member("access_token")?.string, !token.isEmpty, token.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw .unreadableAnswer(endpoint: endpoint, reason: "$.access_token is missing or not a token")
        }
        guard let expiresIn = root.member("expires_in")?.int64, (1...86_400).contains(expiresIn) else {
            throw .unreadableAnswer(endpoint: endpoint, reason: "$.expires_in is missing or not a whole number of seconds from 1 to 86400")
        }
        if let type = root.member("token_type") {
            // The type's name is case-insensitive (RFC 6749 §5.1): its ASCII letters in either case.
            guard let name = type.withStringBytes({ Array($0) }), name.map({ $0 | 0x20 }) == Array("bearer".utf8) else {
                throw .unreadableAnswer(endpoint: endpoint, reason: "$.token_type is not Bearer")
            }
        }
        return (token, expiresIn)
    }
}
