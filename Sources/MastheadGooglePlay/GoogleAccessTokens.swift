import Masthead
import MastheadAppStore
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
/// until ``renewalMarginSeconds`` before its `expires_in` ends; then the first caller asks for a
/// new one while the others wait for it (one request at a time), and callers with a usable token
/// never wait. 429, 5xx and network failures are retried as the client's requests are; a 400,
/// 401 or 403 (`invalid_grant`, a revoked key) is
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
    /// The name of the token endpoint in errors.
    static let endpoint = "OAuth 2.0 token (JWT-bearer grant)"

    let account: GoogleServiceAccount
    let tokenURL: String
    let allowHTTP: Bool
    let transport: HTTPSTransport
    let clock: @Sendable () -> Instant
    let retries: GooglePlayClient.Retries
    let sleep: @Sendable (Int) -> Void
    /// The token in use and when it stops being used.
    private let current = Mutex<(token: String, renewAt: Instant)?>(nil)
    /// Held while a token is asked for: one request at a time.
    private let asking = Mutex<Void>(())

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

    /// A usable access token: the cached one, or a new one.
    func token() throws(GooglePlayError) -> String {
        if let token = usable() { return token }
        let result: Result<String, GooglePlayError> = asking.withLock { _ in
            // Another caller may have fetched one while this one waited.
            if let token = usable() { return .success(token) }
            do throws(GooglePlayError) {
                let (token, expiresIn) = try fetch()
                let renewAt = clock().adding(milliseconds: (expiresIn - Self.renewalMarginSeconds) * 1000)
                current.withLock { $0 = (token, renewAt) }
                return .success(token)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Drops `token` when it is the one in use (Google refused it): the next call asks for a new one.
    func discard(_ token: String) {
        current.withLock { current in
            if current?.token == token { current = nil }
        }
    }

    /// The cached token while it is usable.
    private func usable() -> String? {
        let now = clock()
        return current.withLock { current in
            guard let current, now < current.renewAt else { return nil }
            return current.token
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
    private func fetch() throws(GooglePlayError) -> (String, Int64) {
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
            switch transport.send(request) {
            case .failure(.tooLarge(_, let limit)): throw .answerTooLarge(endpoint: Self.endpoint, limit: limit)
            case .failure(let failure):
                let last = GooglePlayClient.failureText(failure)
                guard attempt < retries.attempts else { throw .unavailable(endpoint: Self.endpoint, attempts: attempt, last: last) }
                sleep(GooglePlayClient.backoff(attempt, retries))
                continue
            case .success(let answer): response = answer
            }
            switch response.status {
            case 200: return try Self.read(response.body)
            case 400, 401, 403:
                throw .notAuthorized(
                    endpoint: Self.endpoint, status: response.status, account: account.clientEmail, detail: GooglePlayClient.googleMessage(response.body))
            case 429:
                guard attempt < retries.attempts else {
                    throw .rateLimited(endpoint: Self.endpoint, attempts: attempt, retryAfterSeconds: response.retryAfterSeconds)
                }
                sleep(GooglePlayClient.wait(attempt, retryAfter: response.retryAfterSeconds, retries))
            case 500...:
                guard attempt < retries.attempts else { throw .unavailable(endpoint: Self.endpoint, attempts: attempt, last: "HTTP \(response.status)") }
                sleep(GooglePlayClient.backoff(attempt, retries))
            default:
                throw .refused(endpoint: Self.endpoint, status: response.status, detail: GooglePlayClient.googleMessage(response.body))
            }
        }
    }

    /// The token and lifetime of a 200 answer: `access_token` (visible ASCII, as a header field
    /// carries it), `expires_in` (1 s to a day), `token_type` `Bearer` when present.
    static func read(_ body: [UInt8]) throws(GooglePlayError) -> (String, Int64) {
        let document: JSONDocument
        do { document = try JSONDocument(parsing: body, maxDepth: 16) } catch { throw .unreadableAnswer(endpoint: endpoint, reason: "\(error)") }
        let root = document.root
        guard root.kind == .object else { throw .unreadableAnswer(endpoint: endpoint, reason: "$ is not a JSON object") }
        guard let token = root.member("access_token")?.string, !token.isEmpty, token.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw .unreadableAnswer(endpoint: endpoint, reason: "$.access_token is missing or not a token")
        }
        guard let expiresIn = root.member("expires_in")?.int64, (1...86_400).contains(expiresIn) else {
            throw .unreadableAnswer(endpoint: endpoint, reason: "$.expires_in is missing or not a whole number of seconds from 1 to 86400")
        }
        if let type = root.member("token_type") {
            guard let name = type.string, name.lowercased() == "bearer" else { throw .unreadableAnswer(endpoint: endpoint, reason: "$.token_type is not Bearer") }
        }
        return (token, expiresIn)
    }
}
