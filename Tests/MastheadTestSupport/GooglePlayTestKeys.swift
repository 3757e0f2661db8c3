public import Foundation
public import MastheadCrypto
import MastheadJSON

/// The Google Play test keys (`Tests/Fixtures/google-play`, test keys only), and RS256 tokens and
/// JWKS documents made with them: what a fake Google signs and publishes.
public enum GooglePlayTestKeys {
    /// The folder holding the keys.
    public static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/google-play")

    /// The `kid` under which the fake publishes ``oidcSigner()``'s public half.
    public static let oidcKeyId = "masthead-test-oidc-1"
    /// The service account of `service-account.json`.
    public static let serviceAccountEmail = "play-reader@masthead-test.iam.gserviceaccount.com"
    /// The `private_key_id` of `service-account.json`.
    public static let serviceAccountKeyId = "0123456789abcdef0123456789abcdef01234567"

    /// The text of a file of the folder, such as `oidc-signer-key.pem`.
    public static func text(_ name: String) throws -> String {
        try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
    }

    /// The key that signs the Pub/Sub push OIDC tokens (Google's, in the tests).
    public static func oidcSigner() throws -> RSAPrivateKey { try RSAPrivateKey(pem: text("oidc-signer-key.pem")) }

    /// The service account's key (`service-account-key.pem`).
    public static func serviceAccountKey() throws -> RSAPrivateKey { try RSAPrivateKey(pem: text("service-account-key.pem")) }

    /// The service account key's public half, which checks the assertions the client signs.
    public static func serviceAccountPublicKey() throws -> RSAPublicKey { try RSAPublicKey(pem: text("service-account-public.pem")) }

    /// A key no JWKS publishes.
    public static func otherKey() throws -> RSAPrivateKey { try RSAPrivateKey(pem: text("other-key.pem")) }

    /// The bytes of `service-account.json`.
    public static func serviceAccountKeyFile() throws -> [UInt8] { try [UInt8](Data(contentsOf: directory.appendingPathComponent("service-account.json"))) }

    /// A JWKS document publishing each key's public half under its `kid`, as Google's certs URL does
    /// (`kty` RSA, `alg` RS256, `use` sig, `n`, `e`).
    public static func jwks(_ keys: [(id: String, key: RSAPrivateKey)]) throws -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("keys")
        writer.beginArray()
        for (id, key) in keys {
            let publicKey = try key.publicKey
            writer.beginObject()
            writer.field("kty", "RSA")
            writer.field("alg", "RS256")
            writer.field("use", "sig")
            writer.field("kid", id)
            writer.field("n", Base64.encode(publicKey.modulus, .url))
            writer.field("e", Base64.encode(publicKey.exponent, .url))
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return writer.bytes
    }

    /// The JWKS of the OIDC signer under ``oidcKeyId``.
    public static func oidcJWKS() throws -> [UInt8] { try jwks([(oidcKeyId, oidcSigner())]) }

    /// A compact JWT of these exact header and payload JSON texts, signed RS256 with `key`: any
    /// token a test needs, well formed or not (the texts are not checked).
    public static func rs256(header: String, payload: String, key: RSAPrivateKey) throws -> String {
        let signingInput = Base64.encode(Array(header.utf8), .url) + "." + Base64.encode(Array(payload.utf8), .url)
        return signingInput + "." + Base64.encode(try RS256.sign(Array(signingInput.utf8), with: key), .url)
    }

    /// A Pub/Sub push OIDC token as Google mints one: header `{"alg":"RS256","kid":…,"typ":"JWT"}`,
    /// claims `aud`, `azp`, `email`, `email_verified`, `exp` (an hour after `issuedAt`), `iat`,
    /// `iss` `https://accounts.google.com` and `sub`, signed with ``oidcSigner()`` unless `key` says.
    /// - Parameters:
    ///   - issuedAt: `iat`, seconds since 1970.
    public static func pubSubToken(
        audience: String, email: String, issuedAt: Int64, lifetimeSeconds: Int64 = 3600, keyId: String = oidcKeyId, key: RSAPrivateKey? = nil
    ) throws -> String {
        var header = JSONWriter()
        header.beginObject()
        header.field("alg", "RS256")
        header.field("kid", keyId)
        header.field("typ", "JWT")
        header.endObject()
        var claims = JSONWriter()
        claims.beginObject()
        claims.field("aud", audience)
        claims.field("azp", "112233445566778899000")
        claims.field("email", email)
        claims.field("email_verified", true)
        claims.field("exp", issuedAt + lifetimeSeconds)
        claims.field("iat", issuedAt)
        claims.field("iss", "https://accounts.google.com")
        claims.field("sub", "112233445566778899000")
        claims.endObject()
        return try rs256(header: header.text, payload: claims.text, key: key ?? oidcSigner())
    }
}
