public import Masthead
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
/// In order: the header field is `Bearer` and a token of at most ``maxTokenBytes``; three
/// base64url parts, header and payload JSON objects (strict JSON: a repeated member is refused),
/// no `crit`; `alg` exactly `RS256` (`none`, `HS256`, `ES256`… refused); `kid` a key of Google's
/// (an unknown one asks `refresh` once, at most once per ``refreshIntervalMilliseconds``, then is
/// refused); the signature; `iss` `https://accounts.google.com` or `accounts.google.com`; `aud`
/// the configured audience (a string: Pub/Sub never sends an array); `email` the configured service
/// account and `email_verified` the JSON `true`; `exp` not passed and `iat` (and `nbf`, when
/// present) not in the future, each with ``skewSeconds`` of tolerance. Identifiers are compared as
/// their exact bytes.
///
/// The fetch runs on the calling thread; while it is under way, and for the rest of the minute,
/// other unknown `kid`s are refused at once (Pub/Sub retries a refused push). Refreshed keys
/// replace the previously refreshed ones; the keys given at creation stay (the operator
/// configured them). Safe to use from several threads at once.
public final class PubSubPushVerifier: Sendable {
    /// The longest token accepted (Google's are about 1 KB).
    public static let maxTokenBytes = 8 << 10
    /// The clock difference tolerated on `exp`, `iat` and `nbf`.
    public static let skewSeconds: Int64 = 60
    /// The shortest time between two fetches of Google's keys for an unknown `kid`.
    public static let refreshIntervalMilliseconds: Int64 = 60_000

    /// The issuers Google's ID tokens carry.
    static let issuers: [[UInt8]] = [Array("https://accounts.google.com".utf8), Array("accounts.google.com".utf8)]

    /// The `aud` accepted.
    public let audience: String
    /// The `email` accepted.
    public let serviceAccount: String
    private let configuredKeys: GoogleSigningKeys
    private let refresh: (@Sendable () throws -> GoogleSigningKeys)?
    /// The keys in use, and when a refresh was last started.
    private let state: Mutex<(keys: GoogleSigningKeys, lastRefresh: Instant?)>

    /// Creates a verifier.
    /// - Parameters:
    ///   - audience: the `aud` the push subscription is configured with (`googlePlayPubSubAudience`).
    ///   - serviceAccount: the push subscription's service account email (`googlePlayPubSubServiceAccount`).
    ///   - keys: Google's signing keys to start with (a configured JWKS file, or a first fetch).
    ///   - refresh: fetches Google's current keys (``GoogleSigningKeys/fetch(from:allowHTTP:transport:)``);
    ///     nil when keys are only configured.
    public init(audience: String, serviceAccount: String, keys: GoogleSigningKeys, refresh: (@Sendable () throws -> GoogleSigningKeys)?) {
        self.audience = audience
        self.serviceAccount = serviceAccount
        configuredKeys = keys
        self.refresh = refresh
        state = Mutex((keys, nil))
    }

    /// The ids of the keys in use.
    public var keyIds: [String] { state.withLock { $0.keys.keyIds } }

    /// Verifies the value of a request's `Authorization` header field at `now`.
    /// - Throws: ``GooglePlayError/pushRefused(_:)`` saying why;
    ///   ``GooglePlayError/signingKeysUnavailable(url:reason:)`` when the token's `kid` is unknown
    ///   and fetching Google's keys failed (the request may be answered as a temporary failure).
    public func verify(authorization: String?, now: Instant) throws(GooglePlayError) -> PubSubPushIdentity {
        guard let authorization else { throw .pushRefused(.missingAuthorization) }
        let field = Array(authorization.utf8)
        guard field.count <= Self.maxTokenBytes + 16 else { throw .pushRefused(.tooLarge(bytes: field.count)) }
        let scheme = Array("bearer ".utf8)
        guard field.count > scheme.count, zip(field, scheme).allSatisfy({ $0 | 0x20 == $1 | 0x20 }) else { throw .pushRefused(.notBearer) }
        let token = Array(field[scheme.count...].drop { $0 == 0x20 })
        guard !token.isEmpty, !token.contains(0x20) else { throw .pushRefused(.notBearer) }
        guard token.count <= Self.maxTokenBytes else { throw .pushRefused(.tooLarge(bytes: token.count)) }

        let jwt: SignedJWT
        do { jwt = try SignedJWT(parsing: token) } catch { throw .pushRefused(error) }
        let signingKey = try key(id: jwt.keyId, now: now)
        guard RS256.verify(jwt.signature, of: jwt.signingInput, with: signingKey) else { throw .pushRefused(.badSignature) }
        do { return try claims(jwt.payload, now: now) } catch { throw .pushRefused(error) }
    }

    /// The key `id` names: a known one, or one a refresh brings when a refresh is allowed now.
    private func key(id: String, now: Instant) throws(GooglePlayError) -> RSAPublicKey {
        let (known, mayRefresh): (RSAPublicKey?, Bool) = state.withLock { state in
            if let key = state.keys.key(id: id) { return (key, false) }
            guard refresh != nil else { return (nil, false) }
            if let last = state.lastRefresh, now.milliseconds - last.milliseconds < Self.refreshIntervalMilliseconds, now >= last { return (nil, false) }
            state.lastRefresh = now
            return (nil, true)
        }
        if let known { return known }
        guard mayRefresh, let refresh else { throw .pushRefused(.unknownKey(id: PeerText.shown(id))) }
        let fetched: GoogleSigningKeys
        do { fetched = try refresh() } catch let error as GooglePlayError {
            throw error
        } catch {
            throw .signingKeysUnavailable(url: "googlePlayJWKSURL", reason: "\(error)")
        }
        let keys = configuredKeys.merging(fetched)
        state.withLock { $0.keys = keys }
        guard let key = keys.key(id: id) else { throw .pushRefused(.unknownKey(id: PeerText.shown(id))) }
        return key
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
