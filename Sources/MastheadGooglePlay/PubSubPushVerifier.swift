import Dispatch
public import Masthead
public import MastheadClock
import MastheadCrypto
import MastheadJSON
import Synchronization

/// Who a verified Pub/Sub push request comes from: its OIDC token's claims.
public struct PubSubPushIdentity: Sendable, Hashable {
    /// `email`: the push subscription's service account.
    public var email: String
    /// `sub`: the service account's unique id, when the token has one.
    public var subject: String?
    /// `exp`: when the token expires.
    public var expires: Instant

    /// Creates an identity.
    public init(email: String, subject: String?, expires: Instant) {
        self.email = email
        self.subject = subject
        self.expires = expires
    }
}

/// Verifies a Pub/Sub push request's `Authorization: Bearer` token, as Google documents for
/// authenticated push: an OIDC ID token (a JWT) signed by Google.
///
/// In order: the header field is `Bearer`, one space, and a token of at most ``maxTokenBytes``;
/// three base64url parts, header and payload JSON objects (strict JSON: a repeated member is
/// refused), no `crit`; `alg` exactly `RS256` (`none`, `HS256`, `ES256`… refused); `kid` a key of
/// Google's; the signature; `iss` `https://accounts.google.com` or `accounts.google.com`; `aud`
/// the configured audience (a string: Pub/Sub never sends an array); `email` the configured service
/// account and `email_verified` the JSON `true`; `exp` not passed and `iat` (and `nbf`, when
/// present) not in the future, each with ``skewSeconds`` of tolerance. Identifiers are compared as
/// their exact bytes.
///
/// Keys: those read from a configured JWKS file are trusted for good. Fetched keys (`refresh`)
/// replace the previously fetched ones as a whole and are trusted for twice the `max-age` of
/// Google's `Cache-Control` (see ``GoogleSigningKeys/trustSeconds``), or a day without one,
/// measured on the monotonic clock; ``refreshIfDue()`` fetches them again from half that age on.
///
/// `verify` never fetches on its own thread (it is called from an HTTP event loop): a `kid` that
/// is not known starts one fetch in the background (at most one at a time, at most once per
/// ``refreshIntervalMilliseconds``) and is refused at once with
/// ``GooglePlayError/signingKeysUnavailable(url:reason:)``, a temporary failure (Pub/Sub
/// delivers the push again later). A `kid` still unknown after a fetch that ended within the
/// interval is ``PushRefusal/unknownKey(id:)``. A fetch's keys never replace those of a fetch
/// started after it. Safe to use from several threads at once.
public final class PubSubPushVerifier: Sendable {
    /// The longest token accepted (Google's are about 1 KB).
    public static let maxTokenBytes = 8 << 10
    /// The clock difference tolerated on `exp`, `iat` and `nbf`.
    public static let skewSeconds: Int64 = 60
    /// The shortest time between the starts of two fetches of Google's keys.
    public static let refreshIntervalMilliseconds: Int64 = 60_000

    /// The issuers Google's ID tokens carry.
    static let issuers: [[UInt8]] = [Array("https://accounts.google.com".utf8), Array("accounts.google.com".utf8)]

    /// The `aud` accepted.
    public let audience: String
    /// The `email` accepted.
    public let serviceAccount: String
    private let configuredKeys: GoogleSigningKeys?
    private let refresh: (@Sendable () throws -> GoogleSigningKeys)?
    private let monotonicClock: @Sendable () -> Int64
    private let runInBackground: @Sendable (@escaping @Sendable () -> Void) -> Void
    private let state: Mutex<KeyState>

    /// Fetched keys, and the fetches.
    private struct KeyState {
        /// The keys of the newest fetch that ended well, and when it started (monotonic milliseconds).
        var fetched: (keys: GoogleSigningKeys, at: Int64)?
        /// The number of the last fetch started, and of the fetch whose keys are in `fetched`.
        var startedGeneration: UInt64 = 0
        var installedGeneration: UInt64 = 0
        /// Whether a fetch is under way.
        var fetching = false
        /// When the last fetch started (monotonic milliseconds).
        var lastStart: Int64?
        /// Why the last fetch failed; nil when it succeeded.
        var lastFailure: GooglePlayError?
    }

    /// Creates a verifier.
    /// - Parameters:
    ///   - audience: the `aud` the push subscription is configured with (`googlePlayPubSubAudience`);
    ///     must not be empty (a precondition).
    ///   - serviceAccount: the push subscription's service account email
    ///     (`googlePlayPubSubServiceAccount`); must not be empty (a precondition).
    ///   - keys: Google's signing keys to start with: a configured JWKS file's (trusted for good), or
    ///     a first ``GoogleSigningKeys/fetch(from:allowHTTP:transport:)`` (trusted as fetched keys are).
    ///   - refresh: fetches Google's current keys (``GoogleSigningKeys/fetch(from:allowHTTP:transport:)``);
    ///     nil when keys are only configured.
    ///   - monotonicClock: milliseconds on a clock that never goes back, for the keys' age and the
    ///     interval between fetches (default: `SystemClock.monotonicMilliseconds`).
    ///   - runInBackground: runs a fetch `verify` starts off the verifying thread (default: a
    ///     global dispatch queue).
    public init(
        audience: String, serviceAccount: String, keys: GoogleSigningKeys, refresh: (@Sendable () throws -> GoogleSigningKeys)?,
        monotonicClock: @escaping @Sendable () -> Int64 = SystemClock.monotonicMilliseconds,
        runInBackground: (@Sendable (@escaping @Sendable () -> Void) -> Void)? = nil
    ) {
        precondition(!audience.isEmpty, "PubSubPushVerifier: the audience is empty")
        precondition(!serviceAccount.isEmpty, "PubSubPushVerifier: the service account is empty")
        self.audience = audience
        self.serviceAccount = serviceAccount
        self.refresh = refresh
        self.monotonicClock = monotonicClock
        self.runInBackground = runInBackground ?? { DispatchQueue.global().async(execute: $0) }
        var initial = KeyState()
        if keys.wasFetched {
            configuredKeys = nil
            initial.fetched = (keys, monotonicClock())
        } else {
            configuredKeys = keys
        }
        state = Mutex(initial)
    }

    /// The ids of the keys in use: the configured ones and the fetched ones still trusted.
    public var keyIds: [String] {
        let now = monotonicClock()
        var ids = configuredKeys?.keyIds ?? []
        if let fetched = state.withLock({ $0.fetched }), Self.trusted(fetched, now: now) {
            ids += fetched.keys.keyIds.filter { id in !ids.contains { $0.sameBytes(as: id) } }
        }
        return ids.sorted { $0.precedesInBytes($1) }
    }

    /// Verifies the value of a request's `Authorization` header field at `now`.
    /// - Throws: ``GooglePlayError/pushRefused(_:)`` saying why;
    ///   ``GooglePlayError/signingKeysUnavailable(url:reason:)`` when the token's `kid` is not
    ///   known while Google's keys are being fetched, or the last fetch failed (the request may be
    ///   answered as a temporary failure).
    public func verify(authorization: String?, now: Instant) throws(GooglePlayError) -> PubSubPushIdentity {
        let jwt = try Self.token(authorization: authorization)
        let signingKey = try key(id: jwt.keyId)
        guard RS256.verify(jwt.signature, of: jwt.signingInput, with: signingKey) else { throw .pushRefused(.badSignature) }
        do { return try claims(jwt.payload, now: now) } catch { throw .pushRefused(error) }
    }

    /// Checks the form of a request's `Authorization` header field, as ``verify(authorization:now:)``
    /// does before it needs a key: `Bearer`, a token of at most ``maxTokenBytes``, three base64url
    /// parts of JSON objects, `alg` `RS256`, a `kid`. Cheap, and needs no key: a request it
    /// refuses may be answered at once.
    /// - Throws: ``GooglePlayError/pushRefused(_:)`` saying why.
    public static func checkForm(authorization: String?) throws(GooglePlayError) {
        _ = try token(authorization: authorization)
    }

    /// The token of an `Authorization` header field, taken apart.
    private static func token(authorization: String?) throws(GooglePlayError) -> SignedJWT {
        guard let authorization else { throw .pushRefused(.missingAuthorization) }
        let field = Array(authorization.utf8)
        guard field.count <= Self.maxTokenBytes + 16 else { throw .pushRefused(.tooLarge(bytes: field.count)) }
        // `Bearer`, its letters in either case (RFC 9110 §11.1), then exactly a space.
        let scheme = Array("bearer".utf8)
        guard field.count > scheme.count + 1, zip(field, scheme).allSatisfy({ $0 | 0x20 == $1 }), field[scheme.count] == 0x20 else {
            throw .pushRefused(.notBearer)
        }
        let token = Array(field[(scheme.count + 1)...].drop { $0 == 0x20 })
        guard !token.isEmpty, !token.contains(0x20) else { throw .pushRefused(.notBearer) }
        guard token.count <= Self.maxTokenBytes else { throw .pushRefused(.tooLarge(bytes: token.count)) }
        do { return try SignedJWT(parsing: token) } catch { throw .pushRefused(error) }
    }

    /// Fetches Google's keys on the calling thread when they are due: none fetched yet, or the
    /// fetched ones at least half their trust time old (``GoogleSigningKeys/trustSeconds``), and
    /// no fetch under way or started in the last ``refreshIntervalMilliseconds``. For a timer of
    /// the service (once a minute suits); does nothing without `refresh`.
    /// - Returns: whether keys were fetched.
    /// - Throws: the fetch's error (the keys in use stay).
    @discardableResult
    public func refreshIfDue() throws(GooglePlayError) -> Bool {
        let now = monotonicClock()
        let generation: UInt64? = state.withLock { state in
            if let fetched = state.fetched, now - fetched.at < fetched.keys.trustSeconds * 1000 / 2 { return nil }
            return startFetch(&state, now: now)
        }
        guard let generation else { return false }
        try fetch(generation, startedAt: now)
        return true
    }

    /// The key `id` names, when one trusted now has it; else starts a fetch when one may start.
    private func key(id: String) throws(GooglePlayError) -> RSAPublicKey {
        if let key = configuredKeys?.key(id: id) { return key }
        let now = monotonicClock()
        let outcome: Result<RSAPublicKey, GooglePlayError>, started: UInt64?
        (outcome, started) = state.withLock { state in
            if let fetched = state.fetched, Self.trusted(fetched, now: now), let key = fetched.keys.key(id: id) { return (.success(key), nil) }
            if let generation = startFetch(&state, now: now) { return (.failure(Self.fetching(id)), generation) }
            if state.fetching { return (.failure(Self.fetching(id)), nil) }
            if let failure = state.lastFailure { return (.failure(failure), nil) }
            // No fetch allowed, or one ended well within the interval without this key.
            return (.failure(.pushRefused(.unknownKey(id: PeerText.shown(id)))), nil)
        }
        if let started { runInBackground { try? self.fetch(started, startedAt: now) } }
        return try outcome.get()
    }

    /// Claims the next fetch when `refresh` is set, none is under way and none started within the
    /// interval: its generation.
    private func startFetch(_ state: inout KeyState, now: Int64) -> UInt64? {
        guard refresh != nil, !state.fetching else { return nil }
        if let last = state.lastStart, now - last < Self.refreshIntervalMilliseconds { return nil }
        state.fetching = true
        state.lastStart = now
        state.startedGeneration += 1
        return state.startedGeneration
    }

    /// Runs fetch `generation` and keeps its keys unless a later fetch's are in use.
    private func fetch(_ generation: UInt64, startedAt started: Int64) throws(GooglePlayError) {
        guard let refresh else { return }
        let result: Result<GoogleSigningKeys, GooglePlayError>
        do { result = .success(try refresh()) } catch let error as GooglePlayError {
            result = .failure(error)
        } catch {
            result = .failure(.signingKeysUnavailable(url: "googlePlayJWKSURL", reason: "\(error)"))
        }
        state.withLock { state in
            state.fetching = false
            switch result {
            case .success(let keys):
                state.lastFailure = nil
                guard generation > state.installedGeneration else { return }
                state.fetched = (keys, started)
                state.installedGeneration = generation
            case .failure(let error):
                state.lastFailure = error
            }
        }
        _ = try result.get()
    }

    /// Whether fetched keys are young enough to be trusted at `now`.
    private static func trusted(_ fetched: (keys: GoogleSigningKeys, at: Int64), now: Int64) -> Bool {
        now - fetched.at < fetched.keys.trustSeconds * 1000
    }

    /// The refusal of a token whose `kid` is not known while Google's keys are being fetched.
    private static func fetching(_ id: String) -> GooglePlayError {
        .signingKeysUnavailable(url: "googlePlayJWKSURL", reason: "the key \"\(PeerText.shown(id))\" is not known yet; Google's current keys are being fetched")
    }

    /// The claims of a payload whose signature verified.
    private func claims(_ payload: JSONValue, now: Instant) throws(PushRefusal) -> PubSubPushIdentity {
        guard let issuer = payload.member("iss"), let issuerBytes = SignedJWT.bytes(issuer) else { throw .missingClaim("iss") }
        guard Self.issuers.contains(issuerBytes) else { throw .wrongIssuer(PeerText.shown(String(decoding: issuerBytes, as: UTF8.self))) }
        // Pub/Sub's audience is one string ("multiple values (array) … not supported").
        guard let audienceClaim = payload.member("aud"), let audienceBytes = SignedJWT.bytes(audienceClaim) else { throw .missingClaim("aud") }
        guard audienceBytes == Array(audience.utf8) else { throw .wrongAudience(PeerText.shown(String(decoding: audienceBytes, as: UTF8.self))) }
        guard let email = payload.member("email"), let emailBytes = SignedJWT.bytes(email) else { throw .missingClaim("email") }
        guard emailBytes == Array(serviceAccount.utf8) else { throw .wrongEmail(PeerText.shown(String(decoding: emailBytes, as: UTF8.self))) }
        guard let verified = payload.member("email_verified") else { throw .missingClaim("email_verified") }
        guard verified.bool == true else { throw .emailNotVerified }
        guard let expires = payload.member("exp")?.int64 else { throw .missingClaim("exp") }
        guard let issued = payload.member("iat")?.int64 else { throw .missingClaim("iat") }
        let seconds = now.milliseconds / 1000
        guard expires >= Int64.max - Self.skewSeconds || seconds < expires + Self.skewSeconds else { throw .expired(exp: expires) }
        guard issued <= seconds + Self.skewSeconds else { throw .notYetValid(notBefore: issued) }
        if let notBefore = payload.member("nbf") {
            guard let value = notBefore.int64 else { throw .missingClaim("nbf") }
            guard value <= seconds + Self.skewSeconds else { throw .notYetValid(notBefore: value) }
        }
        var subject: String?
        if let sub = payload.member("sub") {
            guard let text = sub.string else { throw .missingClaim("sub") }
            subject = text
        }
        let (milliseconds, overflow) = expires.multipliedReportingOverflow(by: 1000)
        return PubSubPushIdentity(
            email: String(decoding: emailBytes, as: UTF8.self), subject: subject, expires: overflow ? .distantFuture : Instant(milliseconds: milliseconds))
    }
}
