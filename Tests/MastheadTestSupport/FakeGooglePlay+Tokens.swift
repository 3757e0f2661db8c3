import COpenSSL
public import Foundation
import MastheadCrypto
import MastheadHTTP
import MastheadJSON
import Synchronization

/// The fake Google's keys, its OAuth 2.0 token endpoint and the Pub/Sub push tokens it mints.
extension FakeGooglePlay {
    /// The test RSA keys (`Tests/Fixtures/google-play`, test-only): the one Google signs Pub/Sub
    /// push tokens with, published in the JWKS, and the service account's.
    /// Signing and checking use OpenSSL directly, not Masthead's RS256: the fake is a second
    /// implementation to hold Masthead's to.
    struct Keys: Sendable {
        let signing: TestRSAKey
        let serviceAccount: TestRSAKey
        let serviceAccountKeyFile: [UInt8]
        let jwks: [UInt8]

        static func load() throws -> Keys {
            let signingPEM = try String(contentsOf: FakeGooglePlay.fixture(FakeGooglePlay.signingKeyFile), encoding: .utf8)
            let accountPEM = try String(contentsOf: FakeGooglePlay.fixture(FakeGooglePlay.serviceAccountKeyFile), encoding: .utf8)
            let signing = try TestRSAKey(pem: signingPEM)
            let signingPublic = try signing.publicComponents()
            var writer = JSONWriter()
            writer.beginObject()
            writer.key("keys")
            writer.beginArray()
            writer.beginObject()
            writer.field("kty", "RSA")
            writer.field("alg", "RS256")
            writer.field("use", "sig")
            writer.field("kid", FakeGooglePlay.signingKeyId)
            writer.field("n", Base64.encode(signingPublic.modulus, .url))
            writer.field("e", Base64.encode(signingPublic.exponent, .url))
            writer.endObject()
            writer.endArray()
            writer.endObject()
            let keyFile = [UInt8](try Data(contentsOf: FakeGooglePlay.fixture("service-account.json")))
            return Keys(
                signing: signing, serviceAccount: try TestRSAKey(pem: accountPEM), serviceAccountKeyFile: keyFile,
                jwks: writer.bytes)
        }
    }

    /// The key Google signs push tokens with, and the service account's key (PKCS #8 PEM).
    public static let signingKeyFile = "oidc-signer-key.pem"
    public static let serviceAccountKeyFile = "service-account-key.pem"

    /// A file of `Tests/Fixtures/google-play`.
    public static func fixture(_ name: String) -> URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures/google-play/\(name)")
    }

    /// The JWKS `jwksURL` answers, for a `googlePlayJWKSFile`.
    public var jwks: [UInt8] { keys.jwks }

    /// The service account's key file as Google gives it (the fixture `service-account.json`;
    /// its `token_uri` is Google's: Masthead must use `googlePlayTokenURL` instead).
    public var serviceAccountKeyFile: [UInt8] { keys.serviceAccountKeyFile }

    /// Writes ``serviceAccountKeyFile`` to a new temporary file and answers its path.
    public func writeServiceAccountKeyFile() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("google-play-account-\(UUID().uuidString).json").path
        try Data(serviceAccountKeyFile).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Writes ``jwks`` to a new temporary file and answers its path.
    public func writeJWKSFile() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("google-jwks-\(UUID().uuidString).json").path
        try Data(jwks).write(to: URL(fileURLWithPath: path))
        return path
    }

    // MARK: Pub/Sub push tokens

    /// The claims of a Pub/Sub push OIDC token; every field may be set wrong for a test.
    public struct PushToken: Sendable {
        public var audience: String
        public var email: String
        public var emailVerified: Bool = true
        public var issuer = "https://accounts.google.com"
        /// Seconds since 1970.
        public var issuedAt = Int64(Date().timeIntervalSince1970)
        public var expiresAt = Int64(Date().timeIntervalSince1970) + 3600
        public var keyId = FakeGooglePlay.signingKeyId
        public var algorithm = "RS256"
        /// Signs with a key no JWKS publishes (the service account's) instead of Google's: a forged token.
        public var forged = false

        /// A push token for `audience` from the push service account `email`.
        public init(audience: String, email: String = FakeGooglePlay.pushServiceAccount) {
            self.audience = audience
            self.email = email
        }
    }

    /// `token` as a compact JWT signed RS256 by Google's test key (or, forged, by another key).
    public func mint(_ token: PushToken) throws -> String {
        var header = JSONWriter()
        header.beginObject()
        header.field("alg", token.algorithm)
        header.field("kid", token.keyId)
        header.field("typ", "JWT")
        header.endObject()
        var claims = JSONWriter()
        claims.beginObject()
        claims.field("aud", token.audience)
        claims.field("azp", "100000000000000000002")
        claims.field("email", token.email)
        claims.field("email_verified", token.emailVerified)
        claims.field("exp", token.expiresAt)
        claims.field("iat", token.issuedAt)
        claims.field("iss", token.issuer)
        claims.field("sub", "100000000000000000002")
        claims.endObject()
        let signingInput = Base64.encode(header.bytes, .url) + "." + Base64.encode(claims.bytes, .url)
        let key = token.forged ? keys.serviceAccount : keys.signing
        let signature = try key.sign(Array(signingInput.utf8))
        return signingInput + "." + Base64.encode(signature, .url)
    }

    /// A valid push token for `audience` from the push service account, as an `Authorization` value.
    public func pushAuthorization(audience: String) throws -> String { "Bearer " + (try mint(PushToken(audience: audience))) }

    // MARK: The token endpoint

    /// Answers the JWT-bearer grant: 200 with a new access token, or 400 `invalid_grant` (and why).
    func grant(_ request: HTTPRequest) -> (HTTPResponse, String?) {
        func refuse(_ reason: String) -> (HTTPResponse, String?) {
            (.json(400, Array(#"{"error": "invalid_grant", "error_description": "Invalid JWT."}"#.utf8)), reason)
        }
        guard request.method == "POST" else { return refuse("not a POST") }
        guard request.header("Content-Type")?.hasPrefix("application/x-www-form-urlencoded") == true else { return refuse("not a form") }
        var form: [String: String] = [:]
        for pair in String(decoding: request.body, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map {
                $0.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            }
            guard parts.count == 2, form[parts[0]] == nil else { return refuse("malformed or repeated form field") }
            form[parts[0]] = parts[1]
        }
        guard form["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer" else { return refuse("grant_type is not jwt-bearer") }
        guard let assertion = form["assertion"] else { return refuse("no assertion") }
        if let reason = check(assertion: assertion) { return refuse(reason) }
        let (token, lifetime) = state.withLock { state in
            let token = "ya29.fake-access-token-\(state.accessTokens.count + 1)"
            state.accessTokens.append(token)
            return (token, state.accessTokenLifetime)
        }
        return (.json(200, Array(#"{"access_token": "\#(token)", "expires_in": \#(lifetime), "token_type": "Bearer"}"#.utf8)), nil)
    }

    /// Why `assertion` is not the service account's valid grant assertion, or nil when it is.
    func check(assertion: String) -> String? {
        let parts = assertion.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3 else { return "not three parts" }
        guard let headerBytes = try? Base64.decode(parts[0], .url), let header = try? JSONDocument(parsing: headerBytes).root else { return "header not JSON" }
        guard let claimBytes = try? Base64.decode(parts[1], .url), let claims = try? JSONDocument(parsing: claimBytes).root else { return "claims not JSON" }
        guard header.member("alg")?.string == "RS256" else { return "alg is not RS256" }
        guard header.member("kid")?.string == Self.serviceAccountKeyId else { return "kid is not the key file's private_key_id" }
        guard claims.member("iss")?.string == Self.serviceAccountEmail else { return "iss is not the service account" }
        guard claims.member("aud")?.string == tokenURL else { return "aud is not the token URL" }
        guard let scope = claims.member("scope")?.string, scope.split(separator: " ").contains("https://www.googleapis.com/auth/androidpublisher") else {
            return "scope lacks androidpublisher"
        }
        guard let issued = claims.member("iat")?.int64, let expires = claims.member("exp")?.int64 else { return "no iat or exp" }
        guard expires > issued, expires - issued <= 3600 else { return "exp is not within an hour after iat" }
        guard expires > Int64(Date().timeIntervalSince1970) else { return "expired" }
        guard let signature = try? Base64.decode(parts[2], .url) else { return "signature not base64url" }
        guard keys.serviceAccount.verify(signature, of: Array((parts[0] + "." + parts[1]).utf8)) else { return "bad signature" }
        return nil
    }
}

