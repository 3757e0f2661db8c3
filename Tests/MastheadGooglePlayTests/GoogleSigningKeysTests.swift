import Foundation
import Masthead
import MastheadAppStore
import MastheadCrypto
import MastheadGooglePlay
import MastheadHTTP
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

    /// A token of the push account signed by `key` under `kid`, as an `Authorization` value.
    static func token(_ kid: String, key: RSAPrivateKey) throws -> String {
        "Bearer "
            + (try GooglePlayTestKeys.pubSubToken(
                audience: PubSubPushVerifierTests.audience, email: PubSubPushVerifierTests.pushAccount, issuedAt: PubSubPushVerifierTests.issued,
                keyId: kid, key: key))
    }

    /// Whether `error` is the temporary refusal of a token whose kid is not known while keys are fetched.
    static func isFetching(_ error: GooglePlayError?) -> Bool {
        guard case .signingKeysUnavailable("googlePlayJWKSURL", let reason)? = error else { return false }
        return reason.hasSuffix("is not known yet; Google's current keys are being fetched")
    }

    @Test func verifier_neverFetchesOnTheVerifyingThread_andRefusesAnUnknownKidAsTemporary() throws {
        let fetched = DispatchSemaphore(value: 0)
        let fetchThread = Mutex<pthread_t?>(nil)
        let verifier = try PubSubPushVerifierTests.verifier {
            fetchThread.withLock { $0 = pthread_self() }
            fetched.signal()
            return try GoogleSigningKeys(jwks: GooglePlayTestKeys.jwks([("rotated-2", GooglePlayTestKeys.otherKey())]))
        }
        let error = try PubSubPushVerifierTests.refusal(Self.token("rotated-2", key: GooglePlayTestKeys.otherKey()), verifier: verifier)
        #expect(Self.isFetching(error), "\(String(describing: error))")
        #expect(fetched.wait(timeout: .now() + 30) == .success)
        let thread = try #require(fetchThread.withLock { $0 })
        #expect(pthread_equal(thread, pthread_self()) == 0)
    }

    @Test func verifier_startsOneBackgroundFetch_forUnknownKids_atMostOnceAMinute() throws {
        let rotated = try GooglePlayTestKeys.jwks([("rotated-2", GooglePlayTestKeys.otherKey())])
        let fetches = Counter()
        let background = Background()
        defer { background.discardAll() }
        let clock = MonotonicClock()
        let verifier = PubSubPushVerifier(
            audience: PubSubPushVerifierTests.audience, serviceAccount: PubSubPushVerifierTests.pushAccount,
            keys: try GoogleSigningKeys(jwks: GooglePlayTestKeys.oidcJWKS()),
            refresh: {
                fetches.add()
                return try GoogleSigningKeys(jwks: rotated)
            }, monotonicClock: clock.read, runInBackground: background.run)
        let other = try GooglePlayTestKeys.otherKey()
        // A kid not known: refused as temporary, a fetch started in the background, none on this thread.
        #expect(Self.isFetching(try PubSubPushVerifierTests.refusal(Self.token("rotated-2", key: other), verifier: verifier)))
        #expect(Self.isFetching(try PubSubPushVerifierTests.refusal(Self.token("made-up", key: other), verifier: verifier)))
        #expect(fetches.value == 0)
        #expect(background.pending == 1)
        background.runAll()
        #expect(fetches.value == 1)
        // The fetch brought rotated-2; the configured key stays.
        #expect(try PubSubPushVerifierTests.refusal(Self.token("rotated-2", key: other), verifier: verifier) == nil)
        #expect(try PubSubPushVerifierTests.refusal(Self.token(GooglePlayTestKeys.oidcKeyId, key: GooglePlayTestKeys.oidcSigner()), verifier: verifier) == nil)
        // Another unknown kid within the minute: refused as unknown, nothing started.
        clock.advance(PubSubPushVerifier.refreshIntervalMilliseconds - 1)
        #expect(try PubSubPushVerifierTests.refusal(Self.token("other", key: other), verifier: verifier) == .pushRefused(.unknownKey(id: "other")))
        #expect(background.pending == 0)
        // A minute after the fetch started: another one.
        clock.advance(1)
        #expect(Self.isFetching(try PubSubPushVerifierTests.refusal(Self.token("other", key: other), verifier: verifier)))
        #expect(background.pending == 1)
        background.runAll()
        #expect(fetches.value == 2)
        #expect(verifier.keyIds == [GooglePlayTestKeys.oidcKeyId, "rotated-2"])
    }

    @Test func verifier_reportsAFailedFetch_asKeysUnavailable_andWaitsAMinuteToAskAgain() throws {
        let fetches = Counter()
        let background = Background()
        defer { background.discardAll() }
        let clock = MonotonicClock()
        let unavailable = GooglePlayError.signingKeysUnavailable(url: "https://www.googleapis.com/oauth2/v3/certs", reason: "HTTP 503")
        let verifier = PubSubPushVerifier(
            audience: PubSubPushVerifierTests.audience, serviceAccount: PubSubPushVerifierTests.pushAccount,
            keys: try GoogleSigningKeys(jwks: GooglePlayTestKeys.oidcJWKS()),
            refresh: {
                fetches.add()
                throw unavailable
            }, monotonicClock: clock.read, runInBackground: background.run)
        let token = try Self.token("new", key: GooglePlayTestKeys.otherKey())
        #expect(Self.isFetching(try PubSubPushVerifierTests.refusal(token, verifier: verifier)))
        background.runAll()
        #expect(try PubSubPushVerifierTests.refusal(token, verifier: verifier) == unavailable)
        #expect(fetches.value == 1)
        #expect(background.pending == 0)
        clock.advance(PubSubPushVerifier.refreshIntervalMilliseconds)
        #expect(Self.isFetching(try PubSubPushVerifierTests.refusal(token, verifier: verifier)))
        #expect(background.pending == 1)
    }

    @Test func fetchedKeys_areRefreshedFromHalfTheirTrust_replacedWhole_andNotTrustedPastTwiceMaxAge() throws {
        let google = try LocalGoogle()
        defer { google.stop() }
        let maxAge = [("Cache-Control", "public, max-age=1000, must-revalidate, no-transform")]
        func answer(_ kid: String) throws -> HTTPResponse {
            HTTPResponse(status: 200, headers: maxAge + [("Content-Type", "application/json")], body: try GooglePlayTestKeys.jwks([(kid, GooglePlayTestKeys.otherKey())]))
        }
        google.state.withLock { $0.apiAnswers = [try! answer("rotated-2"), try! answer("rotated-3"), HTTPResponse(status: 500)] }
        let url = google.url + "/oauth2/v3/certs"
        let clock = MonotonicClock()
        let background = Background()
        defer { background.discardAll() }
        let verifier = PubSubPushVerifier(
            audience: PubSubPushVerifierTests.audience, serviceAccount: PubSubPushVerifierTests.pushAccount,
            keys: try GoogleSigningKeys(jwks: GooglePlayTestKeys.oidcJWKS()),
            refresh: { try GoogleSigningKeys.fetch(from: url, allowHTTP: true, transport: HTTPSTransport()) }, monotonicClock: clock.read,
            runInBackground: background.run)
        let other = try GooglePlayTestKeys.otherKey()
        let configured = try Self.token(GooglePlayTestKeys.oidcKeyId, key: GooglePlayTestKeys.oidcSigner())
        // None fetched yet: due at once.
        #expect(try verifier.refreshIfDue())
        #expect(try PubSubPushVerifierTests.refusal(Self.token("rotated-2", key: other), verifier: verifier) == nil)
        clock.advance(999_999)
        #expect(try verifier.refreshIfDue() == false)
        // Half of twice max-age: fetched again, and the new set replaces the old one whole.
        clock.advance(1)
        #expect(try verifier.refreshIfDue())
        #expect(verifier.keyIds == [GooglePlayTestKeys.oidcKeyId, "rotated-3"])
        #expect(try PubSubPushVerifierTests.refusal(Self.token("rotated-3", key: other), verifier: verifier) == nil)
        // Google fails from then on: rotated-3 is trusted until twice max-age after its fetch.
        clock.advance(1_000_000)
        #expect(throws: GooglePlayError.signingKeysUnavailable(url: url, reason: "HTTP 500")) { try verifier.refreshIfDue() }
        clock.advance(999_999)
        #expect(try PubSubPushVerifierTests.refusal(Self.token("rotated-3", key: other), verifier: verifier) == nil)
        clock.advance(1)
        #expect(try PubSubPushVerifierTests.refusal(Self.token("rotated-3", key: other), verifier: verifier) != nil)
        #expect(verifier.keyIds == [GooglePlayTestKeys.oidcKeyId])
        // A configured key is trusted for good.
        clock.advance(100 * 86_400_000)
        #expect(try PubSubPushVerifierTests.refusal(configured, verifier: verifier) == nil)
        #expect(google.seen.count == 3)
    }

    @Test func fetch_readsCacheControlMaxAge_withinAMinuteAndADay() throws {
        let google = try LocalGoogle()
        defer { google.stop() }
        let jwks = try GooglePlayTestKeys.oidcJWKS()
        let values = ["max-age=19845", "public, MAX-AGE=30", "no-cache, max-age=999999", "no-store", "max-age=1x"]
        google.state.withLock { state in
            state.apiAnswers = values.map { HTTPResponse(status: 200, headers: [("Cache-Control", $0)], body: jwks) } + [HTTPResponse(status: 200, body: jwks)]
        }
        var ages: [Int64?] = []
        for _ in 0...values.count {
            let keys = try GoogleSigningKeys.fetch(from: google.url + "/certs", allowHTTP: true, transport: HTTPSTransport())
            #expect(keys.wasFetched)
            ages.append(keys.maxAgeSeconds)
        }
        #expect(ages == [19845, 60, 86_400, nil, nil, nil])
        #expect(try GoogleSigningKeys(jwks: jwks).wasFetched == false)
        #expect(try GoogleSigningKeys(jwks: jwks).trustSeconds == 86_400)
    }

    @Test func verifier_withoutRefresh_refusesAnUnknownKid() throws {
        let token = try "Bearer " + GooglePlayTestKeys.pubSubToken(
            audience: PubSubPushVerifierTests.audience, email: PubSubPushVerifierTests.pushAccount, issuedAt: PubSubPushVerifierTests.issued, keyId: "new")
        #expect(try PubSubPushVerifierTests.refusal(token) == .pushRefused(.unknownKey(id: "new")))
    }
}

/// A monotonic clock the test moves, in milliseconds.
final class MonotonicClock: Sendable {
    private let now = Mutex<Int64>(1_000_000)

    func advance(_ milliseconds: Int64) { now.withLock { $0 += milliseconds } }
    var read: @Sendable () -> Int64 { { self.now.withLock { $0 } } }
}

/// Work handed to the background, run when the test says.
final class Background: Sendable {
    private let work = Mutex<[@Sendable () -> Void]>([])

    var run: @Sendable (@escaping @Sendable () -> Void) -> Void { { job in self.work.withLock { $0.append(job) } } }
    var pending: Int { work.withLock { $0.count } }

    /// Drops the jobs not run: each holds the verifier that queued it, which holds this queue.
    func discardAll() { work.withLock { $0 = [] } }

    func runAll() {
        let jobs = work.withLock { jobs in
            let taken = jobs
            jobs = []
            return taken
        }
        for job in jobs { job() }
    }
}

/// A count shared with a closure.
final class Counter: Sendable {
    private let count = Mutex(0)

    func add() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
