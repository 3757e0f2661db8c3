import Masthead
import MastheadGooglePlay
import MastheadTestSupport
import Testing

/// Each claim of a Pub/Sub push token, in a token Google's key signed.
struct PubSubPushClaimsTests {
    typealias Fixture = PubSubPushVerifierTests

    static func refusal(_ changes: [(String, String?)], at now: Instant = Fixture.now) throws -> GooglePlayError? {
        try Fixture.refusal(PushTokens.bearer(changes), at: now)
    }

    @Test func verify_refusesAnotherIssuer_andAcceptsGooglesTwoSpellings() throws {
        #expect(try Self.refusal([("iss", #""https://accounts.google.com.evil.example""#)]) == .pushRefused(.wrongIssuer("https://accounts.google.com.evil.example")))
        #expect(try Self.refusal([("iss", #""https://Accounts.google.com""#)]) == .pushRefused(.wrongIssuer("https://Accounts.google.com")))
        #expect(try Self.refusal([("iss", #""accounts.google.com""#)]) == nil)
        #expect(try Self.refusal([("iss", nil)]) == .pushRefused(.missingClaim("iss")))
        #expect(try Self.refusal([("iss", "1")]) == .pushRefused(.missingClaim("iss")))
    }

    @Test func verify_refusesAnotherAudience_andAnArray() throws {
        #expect(try Self.refusal([("aud", #""https://other.example/push""#)]) == .pushRefused(.wrongAudience("https://other.example/push")))
        #expect(try Self.refusal([("aud", PushTokens.quoted(Fixture.audience + "/"))]) == .pushRefused(.wrongAudience(Fixture.audience + "/")))
        // Pub/Sub's audience is one string: even an array holding the right one is refused.
        #expect(try Self.refusal([("aud", "[" + PushTokens.quoted(Fixture.audience) + "]")]) == .pushRefused(.missingClaim("aud")))
        #expect(try Self.refusal([("aud", nil)]) == .pushRefused(.missingClaim("aud")))
        #expect(try Self.refusal([("aud", "{}")]) == .pushRefused(.missingClaim("aud")))
    }

    @Test func verify_refusesAnotherEmail_comparingExactBytes() throws {
        #expect(try Self.refusal([("email", #""someone@example.com""#)]) == .pushRefused(.wrongEmail("someone@example.com")))
        #expect(try Self.refusal([("email", PushTokens.quoted(Fixture.pushAccount.uppercased()))]) == .pushRefused(.wrongEmail(Fixture.pushAccount.uppercased())))
        #expect(try Self.refusal([("email", nil)]) == .pushRefused(.missingClaim("email")))
        // Two spellings of one text are two accounts: é precomposed is not e + combining acute.
        let composed = PubSubPushVerifier(
            audience: Fixture.audience, serviceAccount: "caf\u{E9}@example.com", keys: try GoogleSigningKeys(jwks: GooglePlayTestKeys.oidcJWKS()), refresh: nil)
        let decomposed = try PushTokens.bearer([("email", PushTokens.quoted("cafe\u{301}@example.com"))])
        #expect(try Fixture.refusal(decomposed, verifier: composed) == .pushRefused(.wrongEmail("cafe\u{301}@example.com")))
        #expect(try Fixture.refusal(PushTokens.bearer([("email", PushTokens.quoted("caf\u{E9}@example.com"))]), verifier: composed) == nil)
    }

    @Test(arguments: ["false", #""true""#, "1", "null"])
    func verify_refusesEmailVerifiedNotTrue(value: String) throws {
        #expect(try Self.refusal([("email_verified", value)]) == .pushRefused(.emailNotVerified))
    }

    @Test func verify_refusesAMissingEmailVerified() throws {
        #expect(try Self.refusal([("email_verified", nil)]) == .pushRefused(.missingClaim("email_verified")))
    }

    @Test func verify_refusesAnExpiredToken_afterTheSkew() throws {
        let expires = Fixture.issued + 3600
        let skew = PubSubPushVerifier.skewSeconds
        #expect(try Self.refusal([], at: Instant(milliseconds: (expires + skew - 1) * 1000)) == nil)
        #expect(try Self.refusal([], at: Instant(milliseconds: (expires + skew) * 1000)) == .pushRefused(.expired(exp: expires)))
        #expect(try Self.refusal([("exp", "\(Fixture.issued - 100)")]) == .pushRefused(.expired(exp: Fixture.issued - 100)))
        #expect(try Self.refusal([("exp", nil)]) == .pushRefused(.missingClaim("exp")))
        #expect(try Self.refusal([("exp", "\(expires).5")]) == .pushRefused(.missingClaim("exp")))
        #expect(try Self.refusal([("exp", #""\#(expires)""#)]) == .pushRefused(.missingClaim("exp")))
    }

    @Test func verify_refusesATokenIssuedInTheFuture_orNotYetValid() throws {
        let now = Fixture.now.milliseconds / 1000
        let skew = PubSubPushVerifier.skewSeconds
        #expect(try Self.refusal([("iat", "\(now + skew)")]) == nil)
        #expect(try Self.refusal([("iat", "\(now + skew + 1)")]) == .pushRefused(.notYetValid(notBefore: now + skew + 1)))
        #expect(try Self.refusal([("iat", nil)]) == .pushRefused(.missingClaim("iat")))
        #expect(try Self.refusal([("nbf", "\(now + skew + 1)")]) == .pushRefused(.notYetValid(notBefore: now + skew + 1)))
        #expect(try Self.refusal([("nbf", "\(now)")]) == nil)
        #expect(try Self.refusal([("nbf", "\"soon\"")]) == .pushRefused(.missingClaim("nbf")))
    }

    @Test func verify_refusesASubjectThatIsNotAString_andAcceptsNone() throws {
        #expect(try Self.refusal([("sub", "42")]) == .pushRefused(.missingClaim("sub")))
        let identity = try Fixture.verifier().verify(authorization: PushTokens.bearer([("sub", nil)]), now: Fixture.now)
        #expect(identity.subject == nil)
    }

    @Test func refusals_escapeC1Controls_lineSeparators_andBidiOverrides() throws {
        let issuer = "accounts.google.com\u{85}\u{2028}\u{2029}\u{202A}\u{202E}\u{2066}\u{2069}\u{9F}x"
        let error = try Fixture.refusal(PushTokens.bearer([("iss", PushTokens.quoted(issuer))]))
        #expect(error == .pushRefused(.wrongIssuer(#"accounts.google.com\u{0085}\u{2028}\u{2029}\u{202A}\u{202E}\u{2066}\u{2069}\u{009F}x"#)))
        // Other text is shown as it is.
        let plain = try Fixture.refusal(PushTokens.bearer([("iss", PushTokens.quoted("caf\u{E9} \u{202F}\u{2070}"))]))
        #expect(plain == .pushRefused(.wrongIssuer("caf\u{E9} \u{202F}\u{2070}")))
    }

    @Test func refusals_neverQuoteTheToken() throws {
        let token = try PushTokens.bearer([("aud", #""https://other.example""#)])
        let error = try #require(try Fixture.refusal(token))
        let signature = String(token.split(separator: ".").last!)
        #expect(!error.description.contains(signature))
        #expect(!error.description.contains(String(token.dropFirst(7).prefix(20))))
    }
}
