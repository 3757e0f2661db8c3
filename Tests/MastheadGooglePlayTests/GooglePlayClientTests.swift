import Foundation
import Masthead
import MastheadAppStore
import MastheadCrypto
import MastheadGooglePlay
import MastheadHTTP
import MastheadJSON
import MastheadTestSupport
import Synchronization
import Testing

/// The Play Developer API client against a local server: the exact requests, the access token's
/// grant and caching, retries, and what each status becomes.
@Suite(.serialized)
struct GooglePlayClientTests {
    /// A settable clock and the waits the client asked for.
    final class Harness: Sendable {
        let google: LocalGoogle
        let client: GooglePlayClient
        let recorder: Recorder

        /// The clock the client reads, and the waits it asked for.
        final class Recorder: Sendable {
            let time = Mutex(Instant(milliseconds: 1_592_352_000_000))
            let waits = Mutex<[Int]>([])
        }

        init(maxResponseBytes: Int = 4 << 20, apiURL: String? = nil, retries: GooglePlayClient.Retries = GooglePlayClient.Retries()) throws {
            google = try LocalGoogle()
            let account = try GoogleServiceAccount(keyFile: GooglePlayTestKeys.serviceAccountKeyFile())
            let recorder = Recorder()
            self.recorder = recorder
            client = GooglePlayClient(
                account: account, apiURL: apiURL ?? google.url, tokenURL: google.tokenURL, allowHTTP: true,
                transport: HTTPSTransport(timeoutSeconds: 10, maxResponseBytes: maxResponseBytes), clock: { recorder.time.withLock { $0 } }, retries: retries,
                sleep: { milliseconds in recorder.waits.withLock { $0.append(milliseconds) } })
        }

        func advance(seconds: Int64) { recorder.time.withLock { $0 = $0.adding(milliseconds: seconds * 1000) } }

        var waits: [Int] { recorder.waits.withLock { $0 } }

        deinit { google.stop() }
    }

    /// The error `body` throws, nil when it throws none (another kind of error is recorded as an issue).
    static func error(_ body: () throws -> Void) -> GooglePlayError? {
        do {
            try body()
            return nil
        } catch let error as GooglePlayError {
            return error
        } catch {
            Issue.record("not a GooglePlayError: \(error)")
            return nil
        }
    }

    @Test func subscription_sendsOneGET_withTheAccessToken_andAnswersTheBodyAsSent() throws {
        let harness = try Harness()
        let body = #"{"kind":"androidpublisher#subscriptionPurchaseV2","subscriptionState":"SUBSCRIPTION_STATE_ACTIVE"}"#
        harness.google.state.withLock { $0.apiAnswers = [.json(200, Array(body.utf8))] }
        let answer = try harness.client.subscription(packageName: "com.example.monthly", token: "abc.DEF-ghi_jkl")
        #expect(answer == Array(body.utf8))
        let requests = harness.google.apiRequests
        try #require(requests.count == 1)
        #expect(requests[0].method == "GET")
        #expect(requests[0].target == "/androidpublisher/v3/applications/com.example.monthly/purchases/subscriptionsv2/tokens/abc.DEF-ghi_jkl")
        #expect(requests[0].header("Authorization") == "Bearer token-1")
        #expect(requests[0].header("Accept") == "application/json")
    }

    @Test func tokenGrant_postsTheJWTBearerAssertion_signedByTheServiceAccount() throws {
        let harness = try Harness()
        _ = try harness.client.subscription(packageName: "com.example.monthly", token: "t")
        let requests = harness.google.tokenRequests
        try #require(requests.count == 1)
        #expect(requests[0].method == "POST")
        #expect(requests[0].header("Content-Type") == "application/x-www-form-urlencoded")
        let fields = requests[0].text.split(separator: "&").map(String.init)
        try #require(fields.count == 2)
        #expect(fields[0] == "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer")
        #expect(fields[1].hasPrefix("assertion="))
        let parts = fields[1].dropFirst("assertion=".count).split(separator: ".").map(String.init)
        try #require(parts.count == 3)
        let header = try JSONDocument(parsing: Base64.decode(parts[0], .url)).root
        #expect(header.member("alg")?.string == "RS256")
        #expect(header.member("typ")?.string == "JWT")
        #expect(header.member("kid")?.string == GooglePlayTestKeys.serviceAccountKeyId)
        let claims = try JSONDocument(parsing: Base64.decode(parts[1], .url)).root
        #expect(claims.member("iss")?.string == GooglePlayTestKeys.serviceAccountEmail)
        #expect(claims.member("scope")?.string == "https://www.googleapis.com/auth/androidpublisher")
        #expect(claims.member("aud")?.string == harness.google.tokenURL)
        let issued: Int64 = 1_592_352_000
        #expect(claims.member("iat")?.int64 == issued)
        #expect(claims.member("exp")?.int64 == issued + 3600)
        #expect(claims.count == 5)
        let publicKey = try GooglePlayTestKeys.serviceAccountPublicKey()
        #expect(RS256.verify(try Base64.decode(parts[2], .url), of: Array((parts[0] + "." + parts[1]).utf8), with: publicKey))
    }

    @Test func accessToken_isReused_until60SecondsBeforeItsExpiry() throws {
        let harness = try Harness()
        _ = try harness.client.subscription(packageName: "p", token: "t")
        harness.advance(seconds: 3600 - 61)
        _ = try harness.client.subscription(packageName: "p", token: "t")
        #expect(harness.google.tokenRequests.count == 1)
        harness.advance(seconds: 1)
        _ = try harness.client.subscription(packageName: "p", token: "t")
        #expect(harness.google.tokenRequests.count == 2)
        #expect(harness.google.apiRequests.map { $0.header("Authorization") } == ["Bearer token-1", "Bearer token-1", "Bearer token-2"])
    }

    @Test func accessToken_isAskedOnce_byManyThreadsAtOnce() throws {
        let harness = try Harness()
        let failures = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            do { _ = try harness.client.subscription(packageName: "p", token: "t") } catch { failures.withLock { $0 += 1 } }
        }
        #expect(failures.withLock { $0 } == 0)
        #expect(harness.google.tokenRequests.count == 1)
        #expect(harness.google.apiRequests.count == 8)
    }

    @Test func pathSegments_arePercentEncoded_andDotSegmentsCannotClimb() throws {
        let harness = try Harness()
        _ = try harness.client.product(packageName: "com.example", productId: "issue/2020 05+b=c%d?e#f\u{E9}", token: "t")
        _ = try harness.client.product(packageName: "com.example", productId: "..", token: "t")
        _ = try harness.client.product(packageName: ".", productId: "p", token: "t")
        #expect(
            harness.google.apiRequests.map(\.target) == [
                "/androidpublisher/v3/applications/com.example/purchases/products/issue%2F2020%2005%2Bb%3Dc%25d%3Fe%23f%C3%A9/tokens/t",
                "/androidpublisher/v3/applications/com.example/purchases/products/%2E%2E/tokens/t",
                "/androidpublisher/v3/applications/%2E/purchases/products/p/tokens/t",
            ])
        #expect(
            Self.error { _ = try harness.client.subscription(packageName: "", token: "t") }
                == .invalidRequest(endpoint: "purchases.subscriptionsv2.get ()", reason: "an empty path segment (package name, product id or token)"))
        #expect(harness.google.apiRequests.count == 3)
    }

    @Test(arguments: [".", "..", "a/b", "a%2Fb", "a b", "a+b", "to\u{E9}ken", "a\u{0}b", String(repeating: "a", count: 513), ""])
    func purchaseToken_outsideItsAlphabet_orADotSegment_isRefusedBeforeAnyRequest(token: String) throws {
        let harness = try Harness()
        for call in [
            { () throws -> Void in _ = try harness.client.subscription(packageName: "com.example", token: token) },
            { () throws -> Void in _ = try harness.client.product(packageName: "com.example", productId: "p", token: token) },
            { () throws -> Void in try harness.client.acknowledgeSubscription(packageName: "com.example", productId: "p", token: token) },
            { () throws -> Void in try harness.client.acknowledgeProduct(packageName: "com.example", productId: "p", token: token) },
        ] {
            guard case .invalidRequest(let endpoint, let reason)? = Self.error(call) else {
                Issue.record("\(token.debugDescription) not refused")
                continue
            }
            #expect(endpoint.hasPrefix("purchases."))
            #expect(reason.hasPrefix("the purchase token "))
            #expect(token.utf8.count < 3 || !reason.contains(token))
        }
        #expect(harness.google.seen.isEmpty)
    }

    @Test func purchaseToken_ofGooglesAlphabet_upTo512Bytes_isSentAsItIs() throws {
        let harness = try Harness()
        let long = String(repeating: "aB3._-", count: 85) + "xy"
        _ = try harness.client.subscription(packageName: "com.example", token: long)
        _ = try harness.client.subscription(packageName: "com.example", token: "...")
        #expect(
            harness.google.apiRequests.map(\.target) == [
                "/androidpublisher/v3/applications/com.example/purchases/subscriptionsv2/tokens/" + long,
                "/androidpublisher/v3/applications/com.example/purchases/subscriptionsv2/tokens/...",
            ])
    }

    @Test func acknowledge_postsToTheAcknowledgeMethods_withAnEmptyBody() throws {
        let harness = try Harness()
        try harness.client.acknowledgeSubscription(packageName: "com.example", productId: "monthly", token: "tok.1")
        try harness.client.acknowledgeProduct(packageName: "com.example", productId: "issue-2020-05", token: "tok.2")
        let requests = harness.google.apiRequests
        #expect(requests.map(\.method) == ["POST", "POST"])
        #expect(
            requests.map(\.target) == [
                "/androidpublisher/v3/applications/com.example/purchases/subscriptions/monthly/tokens/tok.1:acknowledge",
                "/androidpublisher/v3/applications/com.example/purchases/products/issue-2020-05/tokens/tok.2:acknowledge",
            ])
        #expect(requests.allSatisfy { $0.body.isEmpty && $0.header("Content-Length") == "0" })
    }

    @Test func voidedPurchases_asksFromStartTime_withType1_andThePageToken() throws {
        let harness = try Harness()
        _ = try harness.client.voidedPurchases(packageName: "com.example", startTime: Instant(milliseconds: 1_590_000_000_123), pageToken: nil)
        _ = try harness.client.voidedPurchases(packageName: "com.example", startTime: Instant(milliseconds: 1_590_000_000_123), pageToken: "next/page+1=")
        #expect(
            harness.google.apiRequests.map(\.target) == [
                "/androidpublisher/v3/applications/com.example/purchases/voidedpurchases?startTime=1590000000123&type=1",
                "/androidpublisher/v3/applications/com.example/purchases/voidedpurchases?startTime=1590000000123&type=1&token=next%2Fpage%2B1%3D",
            ])
    }

    @Test func status429_waitsRetryAfter_cappedAt30Seconds_then5xxBacksOff() throws {
        let harness = try Harness()
        harness.google.state.withLock {
            $0.apiAnswers = [
                HTTPResponse(status: 429, headers: [("Retry-After", "7")]), HTTPResponse(status: 429, headers: [("Retry-After", "86400")]),
                HTTPResponse(status: 503),
            ]
        }
        #expect(try harness.client.subscription(packageName: "p", token: "t") == Array(#"{"kind":"ok"}"#.utf8))
        #expect(harness.waits == [7000, 30_000, 2000])
        #expect(harness.google.apiRequests.count == 4)
    }

    @Test func status5xx_isRetriedFourTimesInAll_thenUnavailable() throws {
        let harness = try Harness()
        harness.google.state.withLock {
            $0.apiAnswers = [HTTPResponse(status: 500), HTTPResponse(status: 502), HTTPResponse(status: 503), .json(503, Array(#"{"error":{"code":503,"message":"Backend Error","status":"UNAVAILABLE"}}"#.utf8))]
        }
        let error = Self.error { _ = try harness.client.subscription(packageName: "com.example", token: "secret-token") }
        #expect(error == .unavailable(endpoint: "purchases.subscriptionsv2.get (com.example)", attempts: 4, last: "HTTP 503: UNAVAILABLE: Backend Error"))
        #expect(harness.waits == [500, 1000, 2000])
        #expect(error.map { !$0.description.contains("secret-token") } == true)
    }

    @Test func networkFailures_areRetried_thenUnavailable_withoutTheURLsToken() throws {
        let closed = try LocalGoogle()
        let url = closed.url
        closed.stop()
        let harness = try Harness(apiURL: url)
        let error = Self.error { _ = try harness.client.subscription(packageName: "com.example", token: "secret-purchase-token") }
        guard case .unavailable("purchases.subscriptionsv2.get (com.example)", 4, let last)? = error else {
            Issue.record("not unavailable: \(String(describing: error))")
            return
        }
        #expect(last.hasPrefix("network: "))
        #expect(error.map { !$0.description.contains("secret-purchase-token") && !$0.description.contains("token-1") } == true)
        #expect(harness.waits == [500, 1000, 2000])
    }

    @Test func status429_atEveryAttempt_isRateLimited() throws {
        let harness = try Harness()
        harness.google.state.withLock { $0.apiAnswers = Array(repeating: HTTPResponse(status: 429), count: 4) }
        #expect(
            Self.error { _ = try harness.client.subscription(packageName: "p", token: "t") }
                == .rateLimited(endpoint: "purchases.subscriptionsv2.get (p)", attempts: 4, retryAfterSeconds: nil))
        #expect(harness.waits == [500, 1000, 2000])
    }

    @Test(arguments: [401, 403])
    func status401or403_isNotAuthorized_namingTheAccount_andDropsTheToken(status: Int) throws {
        let harness = try Harness()
        let denied = #"{"error":{"code":\#(status),"message":"The caller does not have permission","status":"PERMISSION_DENIED"}}"#
        // A 401 is tried once more with a new token: refused again, it fails.
        let tries = status == 401 ? 2 : 1
        harness.google.state.withLock { $0.apiAnswers = Array(repeating: .json(status, Array(denied.utf8)), count: tries) }
        let error = Self.error { _ = try harness.client.subscription(packageName: "com.example", token: "t") }
        #expect(
            error
                == .notAuthorized(
                    endpoint: "purchases.subscriptionsv2.get (com.example)", status: status, account: GooglePlayTestKeys.serviceAccountEmail,
                    detail: "PERMISSION_DENIED: The caller does not have permission"))
        #expect(error.map { $0.description.contains(GooglePlayTestKeys.serviceAccountEmail) && !$0.description.contains("token-1") } == true)
        #expect(harness.google.apiRequests.count == tries)
        _ = try harness.client.subscription(packageName: "com.example", token: "t")
        #expect(harness.google.apiRequests.last?.header("Authorization") == "Bearer token-\(tries + 1)")
    }

    @Test func status401_isTriedOnceMore_withANewAccessToken() throws {
        let harness = try Harness()
        harness.google.state.withLock { $0.apiAnswers = [HTTPResponse(status: 401), .json(200, Array(#"{"kind":"ok"}"#.utf8))] }
        #expect(try harness.client.subscription(packageName: "com.example", token: "t") == Array(#"{"kind":"ok"}"#.utf8))
        #expect(harness.google.apiRequests.map { $0.header("Authorization") } == ["Bearer token-1", "Bearer token-2"])
        #expect(harness.waits.isEmpty)
    }

    @Test func accessTokenFailure_isSharedByConcurrentCalls_andAnsweredAgainFor10Seconds() throws {
        let harness = try Harness()
        let refused = HTTPResponse.json(400, Array(#"{"error":"invalid_grant","error_description":"Invalid JWT Signature."}"#.utf8))
        harness.google.state.withLock { $0.tokenAnswers = Array(repeating: refused, count: 8) }
        let failures = Mutex<[GooglePlayError?]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            let error = Self.error { _ = try harness.client.subscription(packageName: "p", token: "t") }
            failures.withLock { $0.append(error) }
        }
        let expected = GooglePlayError.notAuthorized(
            endpoint: "OAuth 2.0 token (JWT-bearer grant)", status: 400, account: GooglePlayTestKeys.serviceAccountEmail,
            detail: "invalid_grant: Invalid JWT Signature.")
        #expect(failures.withLock { $0 } == Array(repeating: expected, count: 8))
        #expect(harness.google.tokenRequests.count == 1)
        #expect(harness.google.apiRequests.isEmpty)
        harness.advance(seconds: GoogleAccessTokens.failureCacheSeconds - 1)
        #expect(Self.error { _ = try harness.client.subscription(packageName: "p", token: "t") } == expected)
        #expect(harness.google.tokenRequests.count == 1)
        harness.advance(seconds: 1)
        harness.google.state.withLock { $0.tokenAnswers = [] }
        _ = try harness.client.subscription(packageName: "p", token: "t")
        #expect(harness.google.tokenRequests.count == 2)
        #expect(harness.google.apiRequests.map { $0.header("Authorization") } == ["Bearer token-1"])
    }

    @Test func accessToken_livingAMinuteOrLess_isStillReused_forHalfItsLife() throws {
        let harness = try Harness()
        harness.google.state.withLock { $0.expiresIn = 30 }
        _ = try harness.client.subscription(packageName: "p", token: "t")
        harness.advance(seconds: 14)
        _ = try harness.client.subscription(packageName: "p", token: "t")
        #expect(harness.google.tokenRequests.count == 1)
        harness.advance(seconds: 1)
        _ = try harness.client.subscription(packageName: "p", token: "t")
        #expect(harness.google.apiRequests.map { $0.header("Authorization") } == ["Bearer token-1", "Bearer token-1", "Bearer token-2"])
    }

    @Test func call_endsByItsDeadline_notAfterEveryRetry() throws {
        var retries = GooglePlayClient.Retries()
        retries.backoffMilliseconds = 10_000
        retries.deadlineMilliseconds = 15_000
        let harness = try Harness(retries: retries)
        harness.google.state.withLock { $0.apiAnswers = Array(repeating: HTTPResponse(status: 503), count: 4) }
        // The second wait (20 s) would end past the deadline: the call ends after two tries.
        #expect(
            Self.error { _ = try harness.client.subscription(packageName: "p", token: "t") }
                == .unavailable(endpoint: "purchases.subscriptionsv2.get (p)", attempts: 2, last: "HTTP 503"))
        #expect(harness.waits == [10_000])
        #expect(harness.google.apiRequests.count == 2)
    }

    @Test(arguments: [404, 410])
    func status404or410_isPurchaseNotFound(status: Int) throws {
        let harness = try Harness()
        harness.google.state.withLock { $0.apiAnswers = [HTTPResponse(status: status)] }
        #expect(
            Self.error { _ = try harness.client.product(packageName: "com.example", productId: "issue", token: "t") }
                == .purchaseNotFound(endpoint: "purchases.products.get (com.example, issue)", status: status))
        #expect(harness.waits.isEmpty)
    }

    @Test func anotherClientError_isRefused_withGooglesMessage() throws {
        let harness = try Harness()
        let invalid = #"{"error":{"code":400,"message":"Invalid Value","status":"INVALID_ARGUMENT"}}"#
        harness.google.state.withLock { $0.apiAnswers = [.json(400, Array(invalid.utf8))] }
        #expect(
            Self.error { try harness.client.acknowledgeSubscription(packageName: "com.example", productId: "monthly", token: "t") }
                == .refused(endpoint: "purchases.subscriptions.acknowledge (com.example, monthly)", status: 400, detail: "INVALID_ARGUMENT: Invalid Value"))
    }

    @Test func tokenEndpointRefusingTheAssertion_isNotAuthorized_namingTheAccount() throws {
        let harness = try Harness()
        let refusal = #"{"error":"invalid_grant","error_description":"Invalid JWT Signature."}"#
        harness.google.state.withLock { $0.tokenAnswers = [.json(400, Array(refusal.utf8))] }
        #expect(
            Self.error { _ = try harness.client.subscription(packageName: "p", token: "t") }
                == .notAuthorized(
                    endpoint: "OAuth 2.0 token (JWT-bearer grant)", status: 400, account: GooglePlayTestKeys.serviceAccountEmail,
                    detail: "invalid_grant: Invalid JWT Signature."))
        #expect(harness.google.apiRequests.isEmpty)
    }

    @Test func tokenEndpoint5xx_isRetried_andAnUnreadableAnswerRefused() throws {
        let harness = try Harness()
        harness.google.state.withLock { $0.tokenAnswers = [HTTPResponse(status: 500), .json(200, Array(#"{"access_token":"x y","expires_in":3600}"#.utf8))] }
        #expect(
            Self.error { _ = try harness.client.subscription(packageName: "p", token: "t") }
                == .unreadableAnswer(endpoint: "OAuth 2.0 token (JWT-bearer grant)", reason: "$.access_token is missing or not a token"))
        #expect(harness.waits == [500])
        // Past the 10 s in which the failure is answered again.
        harness.advance(seconds: GoogleAccessTokens.failureCacheSeconds)
        harness.google.state.withLock { $0.tokenAnswers = [.json(200, Array(#"{"access_token":"abc","expires_in":0}"#.utf8))] }
        #expect(
            Self.error { _ = try harness.client.subscription(packageName: "p", token: "t") }
                == .unreadableAnswer(
                    endpoint: "OAuth 2.0 token (JWT-bearer grant)", reason: "$.expires_in is missing or not a whole number of seconds from 1 to 86400"))
    }

    @Test func answerLargerThanTheTransportTakes_isRefused() throws {
        let harness = try Harness(maxResponseBytes: 1024)
        harness.google.state.withLock { $0.apiAnswers = [.json(200, [UInt8](repeating: 0x20, count: 4096))] }
        #expect(
            Self.error { _ = try harness.client.subscription(packageName: "p", token: "t") }
                == .answerTooLarge(endpoint: "purchases.subscriptionsv2.get (p)", limit: 1024))
    }

    @Test func baseURL_mustBeHTTPS_unlessHTTPIsAllowed() throws {
        let google = try LocalGoogle()
        defer { google.stop() }
        let client = GooglePlayClient(
            account: try GoogleServiceAccount(keyFile: GooglePlayTestKeys.serviceAccountKeyFile()), apiURL: google.url, tokenURL: google.tokenURL,
            allowHTTP: false, transport: HTTPSTransport(), clock: { Instant(milliseconds: 0) })
        #expect(Self.error { _ = try client.subscription(packageName: "p", token: "t") } == .invalidBaseURL(setting: "googlePlayAPIURL", url: google.url))
        #expect(google.seen.isEmpty)
        #expect(Self.error { try GooglePlayClient.checkURL("ftp://example.com", setting: "googlePlayTokenURL", allowHTTP: true) } == .invalidBaseURL(setting: "googlePlayTokenURL", url: "ftp://example.com"))
        #expect(Self.error { try GooglePlayClient.checkURL("https://androidpublisher.googleapis.com", setting: "googlePlayAPIURL", allowHTTP: false) } == nil)
    }

    @Test func signingKeys_areFetchedFromTheJWKSURL() throws {
        let google = try LocalGoogle()
        defer { google.stop() }
        google.state.withLock { $0.apiAnswers = [.json(200, try! GooglePlayTestKeys.oidcJWKS()), HTTPResponse(status: 500)] }
        let keys = try GoogleSigningKeys.fetch(from: google.url + "/oauth2/v3/certs", allowHTTP: true, transport: HTTPSTransport())
        #expect(keys.keyIds == [GooglePlayTestKeys.oidcKeyId])
        #expect(google.seen.map(\.target) == ["/oauth2/v3/certs"])
        #expect(
            Self.error { _ = try GoogleSigningKeys.fetch(from: google.url + "/oauth2/v3/certs", allowHTTP: true, transport: HTTPSTransport()) }
                == .signingKeysUnavailable(url: google.url + "/oauth2/v3/certs", reason: "HTTP 500"))
    }
}
