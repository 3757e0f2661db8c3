import Masthead
import MastheadCrypto
import MastheadGooglePlay
import MastheadTestSupport
import Synchronization
import Testing

/// JWKS documents, and the verifier's keys refreshed for an unknown kid.
struct GoogleSigningKeysTests {
    static func modulus() throws -> String { Base64.encode(try GooglePlayTestKeys.oidcSigner().publicKey.modulus, .url) }

    static func refusal(_ jwks: String) -> GooglePlayError? {
        do {
            _ = try GoogleSigningKeys(jwks: Array(jwks.utf8))
            return nil
        } catch { return error }
    }

    @Test func jwks_readsGooglesShape_byKid() throws {
        // As https://www.googleapis.com/oauth2/v3/certs serves it.
        let jwks = #"{"keys":[{"e":"AQAB","kty":"RSA","alg":"RS256","n":"\#(try Self.modulus())","use":"sig","kid":"k1"},"#
            + #"{"kty":"RSA","n":"\#(Base64.encode(try GooglePlayTestKeys.otherKey().publicKey.modulus, .url))","e":"AQAB","kid":"k2"}]}"#
        let keys = try GoogleSigningKeys(jwks: Array(jwks.utf8))
        #expect(keys.keyIds == ["k1", "k2"])
        #expect(try keys.key(id: "k1")?.modulus == GooglePlayTestKeys.oidcSigner().publicKey.modulus)
        #expect(keys.key(id: "k3") == nil)
        #expect(keys.key(id: "K1") == nil)
    }

    @Test func jwks_skipsKeysOfOtherKinds_andRefusesADocumentWithNoUsableKey() throws {
        let n = try Self.modulus()
        let mixed = #"{"keys":[{"kty":"EC","crv":"P-256","x":"AA","y":"AA","kid":"ec"},{"kty":"RSA","alg":"RS512","n":"\#(n)","e":"AQAB","kid":"rs512"},"#
            + #"{"kty":"RSA","use":"enc","n":"\#(n)","e":"AQAB","kid":"enc"},{"kty":"RSA","n":"\#(n)","e":"AQAB","kid":"good"}]}"#
        #expect(try GoogleSigningKeys(jwks: Array(mixed.utf8)).keyIds == ["good"])
        let none = #"{"keys":[{"kty":"EC","kid":"ec"},{"kty":"RSA","use":"enc","n":"\#(n)","e":"AQAB","kid":"enc"}]}"#
        #expect(Self.refusal(none) == .invalidJWKS(reason: "no usable RSA RS256 signing key ($.keys[0]: kty EC; $.keys[1]: use enc)"))
        #expect(Self.refusal(#"{"keys":[]}"#) == .invalidJWKS(reason: "no usable RSA RS256 signing key"))
    }

    @Test func jwks_refusesMalformedDocumentsAndKeys_namingThePath() throws {
        let n = try Self.modulus()
        #expect(Self.refusal("[]") == .invalidJWKS(reason: "$ is not a JSON object"))
        #expect(Self.refusal(#"{"keys":{}}"#) == .invalidJWKS(reason: "$.keys is missing or not an array"))
        #expect(Self.refusal(#"{"keys":[7]}"#) == .invalidJWKS(reason: "$.keys[0] is not a JSON object"))
        #expect(Self.refusal(#"{"keys":[{"n":"\#(n)"}]}"#) == .invalidJWKS(reason: "$.keys[0].kty is missing or not a string"))
        #expect(Self.refusal(#"{"keys":[{"kty":"RSA","n":"\#(n)","e":"AQAB"}]}"#) == .invalidJWKS(reason: "$.keys[0].kid is missing or not a string"))
        #expect(Self.refusal(#"{"keys":[{"kty":"RSA","e":"AQAB","kid":"a"}]}"#) == .invalidJWKS(reason: "$.keys[0].n is missing or not a string"))
        guard case .invalidJWKS(let padded)? = Self.refusal(#"{"keys":[{"kty":"RSA","n":"\#(n)","e":"AQAB==","kid":"a"}]}"#) else {
            Issue.record("not refused")
            return
        }
        #expect(padded.hasPrefix("$.keys[0].e: invalid base64url"))
        let short = Base64.encode(Array(try GooglePlayTestKeys.oidcSigner().publicKey.modulus.prefix(128)), .url)
        #expect(
            Self.refusal(#"{"keys":[{"kty":"RSA","n":"\#(short)","e":"AQAB","kid":"short"}]}"#)
                == .invalidJWKS(reason: #"$.keys[0] (kid "short"): unusable RSA key: a 1024-bit modulus; at least 2048 bits are required"#))
        #expect(
            Self.refusal(#"{"keys":[{"kty":"RSA","n":"\#(n)","e":"AQAB","kid":"a"},{"kty":"RSA","n":"\#(n)","e":"AQAB","kid":"a"}]}"#)
                == .invalidJWKS(reason: #"$.keys[1].kid "a" is used by an earlier key"#))
        guard case .invalidJWKS(let duplicate)? = Self.refusal(#"{"keys":[{"kty":"RSA","kty":"EC"}]}"#) else {
            Issue.record("not refused")
            return
        }
        #expect(duplicate.contains("duplicate key \"kty\""))
    }

    @Test func verifier_asksForNewKeysOnce_forAnUnknownKid_atMostOnceAMinute() throws {
        let rotated = try GooglePlayTestKeys.jwks([("rotated-2", GooglePlayTestKeys.otherKey())])
        let fetches = Counter()
        let verifier = try PubSubPushVerifierTests.verifier {
            fetches.add()
            return try GoogleSigningKeys(jwks: rotated)
        }
        let now = PubSubPushVerifierTests.now
        func token(_ kid: String, key: RSAPrivateKey) throws -> String {
            "Bearer "
                + (try GooglePlayTestKeys.pubSubToken(
                    audience: PubSubPushVerifierTests.audience, email: PubSubPushVerifierTests.pushAccount, issuedAt: PubSubPushVerifierTests.issued,
                    keyId: kid, key: key))
        }
        // A kid never seen: one fetch, then refused.
        #expect(try PubSubPushVerifierTests.refusal(token("made-up", key: GooglePlayTestKeys.otherKey()), verifier: verifier, at: now) == .pushRefused(.unknownKey(id: "made-up")))
        #expect(fetches.value == 1)
        // The fetch brought rotated-2: known now, no fetch; the configured key stays.
        #expect(try PubSubPushVerifierTests.refusal(token("rotated-2", key: GooglePlayTestKeys.otherKey()), verifier: verifier, at: now) == nil)
        #expect(try PubSubPushVerifierTests.refusal(token(GooglePlayTestKeys.oidcKeyId, key: GooglePlayTestKeys.oidcSigner()), verifier: verifier, at: now) == nil)
        #expect(fetches.value == 1)
        // Another unknown kid within the minute: refused without asking.
        let later = now.adding(milliseconds: PubSubPushVerifier.refreshIntervalMilliseconds - 1)
        #expect(try PubSubPushVerifierTests.refusal(token("other", key: GooglePlayTestKeys.otherKey()), verifier: verifier, at: later) == .pushRefused(.unknownKey(id: "other")))
        #expect(fetches.value == 1)
        // A minute after the fetch: asked again.
        let minute = now.adding(milliseconds: PubSubPushVerifier.refreshIntervalMilliseconds)
        #expect(try PubSubPushVerifierTests.refusal(token("other", key: GooglePlayTestKeys.otherKey()), verifier: verifier, at: minute) == .pushRefused(.unknownKey(id: "other")))
        #expect(fetches.value == 2)
        #expect(verifier.keyIds == [GooglePlayTestKeys.oidcKeyId, "rotated-2"])
    }

    @Test func verifier_reportsAFailedFetch_asKeysUnavailable_andWaitsAMinuteToAskAgain() throws {
        let fetches = Counter()
        let verifier = try PubSubPushVerifierTests.verifier {
            fetches.add()
            throw GooglePlayError.signingKeysUnavailable(url: "https://www.googleapis.com/oauth2/v3/certs", reason: "HTTP 503")
        }
        let token = try "Bearer " + GooglePlayTestKeys.pubSubToken(
            audience: PubSubPushVerifierTests.audience, email: PubSubPushVerifierTests.pushAccount, issuedAt: PubSubPushVerifierTests.issued, keyId: "new")
        #expect(
            try PubSubPushVerifierTests.refusal(token, verifier: verifier)
                == .signingKeysUnavailable(url: "https://www.googleapis.com/oauth2/v3/certs", reason: "HTTP 503"))
        #expect(try PubSubPushVerifierTests.refusal(token, verifier: verifier) == .pushRefused(.unknownKey(id: "new")))
        #expect(fetches.value == 1)
    }

    @Test func verifier_withoutRefresh_refusesAnUnknownKid() throws {
        let token = try "Bearer " + GooglePlayTestKeys.pubSubToken(
            audience: PubSubPushVerifierTests.audience, email: PubSubPushVerifierTests.pushAccount, issuedAt: PubSubPushVerifierTests.issued, keyId: "new")
        #expect(try PubSubPushVerifierTests.refusal(token) == .pushRefused(.unknownKey(id: "new")))
    }
}

/// A count shared with a closure.
final class Counter: Sendable {
    private let count = Mutex(0)

    func add() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
