import Masthead
import MastheadCrypto
import MastheadGooglePlay
import MastheadTestSupport
import Synchronization
import Testing

/// The Pub/Sub push OIDC token: every check, each refusal named.
struct PubSubPushVerifierTests {
    static let audience = "https://masthead.example/v1/notifications/google-play"
    static let pushAccount = "pubsub-push@masthead-test.iam.gserviceaccount.com"
    /// 2020-06-17T00:00:00Z, seconds.
    static let issued: Int64 = 1_592_352_000
    static let now = Instant(milliseconds: (issued + 10) * 1000)

    static func verifier(refresh: (@Sendable () throws -> GoogleSigningKeys)? = nil) throws -> PubSubPushVerifier {
        PubSubPushVerifier(audience: audience, serviceAccount: pushAccount, keys: try GoogleSigningKeys(jwks: GooglePlayTestKeys.oidcJWKS()), refresh: refresh)
    }

    static func token() throws -> String { try GooglePlayTestKeys.pubSubToken(audience: audience, email: pushAccount, issuedAt: issued) }

    /// The refusal of `authorization`, or nil when it was accepted.
    static func refusal(_ authorization: String?, verifier: PubSubPushVerifier? = nil, at now: Instant = now) throws -> GooglePlayError? {
        let verifier = try verifier ?? Self.verifier()
        do {
            _ = try verifier.verify(authorization: authorization, now: now)
            return nil
        } catch { return error }
    }

    @Test func verify_acceptsGooglesToken_andAnswersItsIdentity() throws {
        let identity = try Self.verifier().verify(authorization: "Bearer " + Self.token(), now: Self.now)
        #expect(identity == PubSubPushIdentity(email: Self.pushAccount, subject: "112233445566778899000", expires: Instant(milliseconds: (Self.issued + 3600) * 1000)))
    }

    @Test func verify_refusesATokenSignedByAnotherKey() throws {
        let forged = try GooglePlayTestKeys.pubSubToken(audience: Self.audience, email: Self.pushAccount, issuedAt: Self.issued, key: GooglePlayTestKeys.otherKey())
        #expect(try Self.refusal("Bearer " + forged) == .pushRefused(.badSignature))
    }

    @Test func init_requiresAnAudience_andAServiceAccount() async {
        await #expect(processExitsWith: .failure) {
            _ = PubSubPushVerifier(audience: "", serviceAccount: "push@example.com", keys: try! GoogleSigningKeys(jwks: GooglePlayTestKeys.oidcJWKS()), refresh: nil)
        }
        await #expect(processExitsWith: .failure) {
            _ = PubSubPushVerifier(audience: "https://example.com", serviceAccount: "", keys: try! GoogleSigningKeys(jwks: GooglePlayTestKeys.oidcJWKS()), refresh: nil)
        }
    }
}

/// Each refusal of the Authorization field and the token's shape.
struct PubSubPushShapeTests {
    typealias Fixture = PubSubPushVerifierTests

    @Test func verify_refusesAMissingOrNonBearerAuthorization() throws {
        #expect(try Fixture.refusal(nil) == .pushRefused(.missingAuthorization))
        #expect(try Fixture.refusal("Basic " + Fixture.token()) == .pushRefused(.notBearer))
        #expect(try Fixture.refusal("Bearer") == .pushRefused(.notBearer))
        #expect(try Fixture.refusal("Bearer ") == .pushRefused(.notBearer))
        #expect(try Fixture.refusal(Fixture.token()) == .pushRefused(.notBearer))
        #expect(try Fixture.refusal("Bearer " + Fixture.token() + " extra") == .pushRefused(.notBearer))
        // The scheme's name is case-insensitive (RFC 9110 §11.1).
        #expect(try Fixture.refusal("bearer " + Fixture.token()) == nil)
    }

    @Test func verify_refusesANulOrAnotherByte_inPlaceOfTheSpaceAfterBearer() throws {
        let token = try Fixture.token()
        for separator in ["\u{0}", "\t", "\u{1}", "_"] {
            #expect(try Fixture.refusal("Bearer" + separator + token) == .pushRefused(.notBearer), "\(separator.debugDescription)")
        }
        #expect(try Fixture.refusal("BEARER " + token) == nil)
    }

    @Test func malformedHeader_quotesNoControlOrBidiCharacter_andNoLongName() throws {
        let name = "\u{202E}\u{85}\u{2028}\u{2066}" + String(repeating: "n", count: 1000)
        let header = #"{"alg":"RS256","kid":"\#(GooglePlayTestKeys.oidcKeyId)","\#(name)":1,"\#(name)":2}"#
        guard case .pushRefused(.malformed("header", let reason))? = try Fixture.refusal(PushTokens.bearer(header: header)) else {
            Issue.record("not refused")
            return
        }
        #expect(reason.hasPrefix("is not JSON: "))
        #expect(reason.contains(#"\u{202E}\u{0085}\u{2028}\u{2066}nnn"#))
        #expect(!reason.unicodeScalars.contains { [0x202E, 0x85, 0x2028, 0x2066].contains($0.value) })
        #expect(reason.unicodeScalars.count < 300)
    }

    @Test func verify_refusesAnOversizedToken_beforeDecodingIt() throws {
        let token = try Fixture.token()
        let padded = token + String(repeating: "A", count: PubSubPushVerifier.maxTokenBytes + 1 - token.utf8.count)
        #expect(try Fixture.refusal("Bearer " + padded) == .pushRefused(.tooLarge(bytes: PubSubPushVerifier.maxTokenBytes + 1)))
        let huge = String(repeating: "A", count: 1 << 20)
        #expect(try Fixture.refusal("Bearer " + huge) == .pushRefused(.tooLarge(bytes: huge.utf8.count + 7)))
    }

    @Test(arguments: [
        ("a.b", "token", "has 2 parts; a JWT has 3 (header.payload.signature)"),
        ("a.b.c.d", "token", "has 4 parts; a JWT has 3 (header.payload.signature)"),
        (".e30.c2ln", "header", "is empty"),
        ("e30..c2ln", "payload", "is empty"),
    ])
    func verify_refusesATokenNotOfThreeParts(token: String, part: String, reason: String) throws {
        #expect(try Fixture.refusal("Bearer " + token) == .pushRefused(.malformed(part: part, reason: reason)))
    }

    @Test func verify_refusesAHeaderOrPayloadThatIsNotBase64urlJSONObjects() throws {
        let good = try Fixture.token().split(separator: ".").map(String.init)
        func refusal(_ parts: [String]) throws -> PushRefusal? {
            guard case .pushRefused(let refusal)? = try Fixture.refusal("Bearer " + parts.joined(separator: ".")) else { return nil }
            return refusal
        }
        // Standard base64's '+' and padding are not base64url.
        guard case .malformed("header", let reason)? = try refusal(["eyJhbGciOiJSUzI1NiJ9+", good[1], good[2]]) else { Issue.record("not refused"); return }
        #expect(reason.hasPrefix("is not base64url"))
        guard case .malformed("payload", let padded)? = try refusal([good[0], good[1] + "=", good[2]]) else { Issue.record("not refused"); return }
        #expect(padded.hasPrefix("is not base64url"))
        guard case .malformed("header", let notJSON)? = try refusal([PushTokens.base64url("{alg:RS256}"), good[1], good[2]]) else {
            Issue.record("not refused")
            return
        }
        #expect(notJSON.hasPrefix("is not JSON"))
        #expect(try refusal([PushTokens.base64url("[1]"), good[1], good[2]]) == .malformed(part: "header", reason: "is not a JSON object"))
        #expect(try refusal([good[0], PushTokens.base64url("\"claims\""), good[2]]) == .malformed(part: "payload", reason: "is not a JSON object"))
        guard case .malformed("signature", let signature)? = try refusal([good[0], good[1], good[2] + "*"]) else { Issue.record("not refused"); return }
        #expect(signature.hasPrefix("is not base64url"))
        #expect(try refusal([good[0], good[1], ""]) == .malformed(part: "signature", reason: "is empty"))
    }

    @Test func verify_refusesDuplicateMembers_inTheHeaderAndThePayload() throws {
        let header = #"{"alg":"RS256","kid":"\#(GooglePlayTestKeys.oidcKeyId)","alg":"RS256"}"#
        guard case .pushRefused(.malformed("header", let reason))? = try Fixture.refusal(PushTokens.bearer(header: header)) else {
            Issue.record("not refused")
            return
        }
        #expect(reason.contains("duplicate key \"alg\""))
        // A second email after the right one: whichever a reader took, the token is refused.
        let payload = try PushTokens.bearer([("email", #""\#(Fixture.pushAccount)","email":"attacker@example.com""#)])
        guard case .pushRefused(.malformed("payload", let duplicate))? = try Fixture.refusal(payload) else {
            Issue.record("not refused")
            return
        }
        #expect(duplicate.contains("duplicate key \"email\""))
    }

    @Test func verify_refusesAHeaderWithCrit_orWithoutAlgOrKid() throws {
        let crit = #"{"alg":"RS256","kid":"\#(GooglePlayTestKeys.oidcKeyId)","crit":["exp"]}"#
        #expect(
            try Fixture.refusal(PushTokens.bearer(header: crit))
                == .pushRefused(.malformed(part: "header", reason: "has crit: it requires extensions this verifier does not implement")))
        #expect(
            try Fixture.refusal(PushTokens.bearer(header: #"{"kid":"\#(GooglePlayTestKeys.oidcKeyId)"}"#))
                == .pushRefused(.malformed(part: "header", reason: "has no alg")))
        #expect(try Fixture.refusal(PushTokens.bearer(header: #"{"alg":"RS256"}"#)) == .pushRefused(.malformed(part: "header", reason: "has no kid")))
        #expect(
            try Fixture.refusal(PushTokens.bearer(header: #"{"alg":"RS256","kid":7}"#))
                == .pushRefused(.malformed(part: "header", reason: "kid is not a string")))
        #expect(
            try Fixture.refusal(PushTokens.bearer(header: #"{"alg":["RS256"],"kid":"k"}"#))
                == .pushRefused(.malformed(part: "header", reason: "alg is not a string")))
    }
}

/// Tokens of other algorithms, other keys, or altered after signing.
struct PubSubPushSignatureTests {
    typealias Fixture = PubSubPushVerifierTests

    @Test func verify_refusesAlgNone_evenUnsigned() throws {
        let header = PushTokens.base64url(#"{"alg":"none","kid":"\#(GooglePlayTestKeys.oidcKeyId)"}"#)
        let unsigned = header + "." + PushTokens.base64url(PushTokens.payload()) + "."
        #expect(try Fixture.refusal("Bearer " + unsigned) == .pushRefused(.unsupportedAlgorithm("none")))
    }

    @Test func verify_refusesHS256_signedWithThePublicKeyAsSecret() throws {
        // The classic confusion: an HMAC keyed with the public key's bytes, which anyone has.
        let publicKey = try GooglePlayTestKeys.oidcSigner().publicKey
        let header = PushTokens.base64url(#"{"alg":"HS256","kid":"\#(GooglePlayTestKeys.oidcKeyId)","typ":"JWT"}"#)
        let input = header + "." + PushTokens.base64url(PushTokens.payload())
        let mac = try HMACSHA256.authenticationCode(key: publicKey.modulus, message: Array(input.utf8))
        #expect(try Fixture.refusal("Bearer " + input + "." + Base64.encode(mac, .url)) == .pushRefused(.unsupportedAlgorithm("HS256")))
    }

    @Test func verify_refusesES256_andPS256() throws {
        let signer = try JWSSigner(key: SigningKey(pem: FakeAppStoreServerAPI.privateKeyPEM()), keyId: GooglePlayTestKeys.oidcKeyId)
        let es256 = try signer.sign(Array(PushTokens.payload().utf8))
        #expect(try Fixture.refusal("Bearer " + es256) == .pushRefused(.unsupportedAlgorithm("ES256")))
        let ps256 = #"{"alg":"PS256","kid":"\#(GooglePlayTestKeys.oidcKeyId)"}"#
        #expect(try Fixture.refusal(PushTokens.bearer(header: ps256)) == .pushRefused(.unsupportedAlgorithm("PS256")))
    }

    @Test func verify_refusesAnAlterationOfThePayload_orTheSignature() throws {
        let parts = try Fixture.token().split(separator: ".").map(String.init)
        let otherPayload = PushTokens.base64url(PushTokens.payload([("email", #""attacker@example.com""#)]))
        #expect(try Fixture.refusal("Bearer " + [parts[0], otherPayload, parts[2]].joined(separator: ".")) == .pushRefused(.badSignature))
        var signature = try Base64.decode(parts[2], .url)
        signature[17] ^= 0x04
        #expect(try Fixture.refusal("Bearer " + [parts[0], parts[1], Base64.encode(signature, .url)].joined(separator: ".")) == .pushRefused(.badSignature))
        #expect(try Fixture.refusal("Bearer " + [parts[0], parts[1], Base64.encode(Array(signature.prefix(255)), .url)].joined(separator: ".")) == .pushRefused(.badSignature))
    }
}
