import Foundation
import Masthead
import MastheadAppStore
import MastheadCrypto
import MastheadFormats
import MastheadJSON
@testable import MastheadService
import MastheadStorage
import MastheadTestSupport
import Synchronization
import Testing

/// Refund requests answered with consumption information: the issues served recorded once per
/// pair, the reader's consent, the durable queue of `CONSUMPTION_REQUEST`s and what is sent to
/// Apple (the fake), with its retries and give-ups.
struct ConsumptionServiceTests {
    /// Ivy's subscription: one transaction, t1, paying for 2020-03-15 to 2020-06-15 (archive): as of
    /// 2020-05-20 it makes 2020-03 (unlocked at its start), 2020-04 and 2020-05 readable.
    static let now = "2020-05-20T00:00:00Z"

    /// A service taking in the test chain's signed data, with the feature on (unless `enabled` is
    /// false) and the fake's key; the log's lines go to `log`.
    static func harness(
        _ fake: FakeAppStoreServerAPI?, enabled: Bool = true, log: LogLines = LogLines(), configure: (inout ServiceConfiguration) -> Void = { _ in }
    ) throws -> ServiceHarness {
        let harness = try ServiceHarness(now: now) { configuration in
            SignedFixtures.configure(&configuration)
            configuration.consumptionInformation = enabled
            configuration.refundPreference = .grantProrated
            if let fake {
                fake.configure(&configuration)
            }
            configure(&configuration)
        }
        harness.service.consumption.logLines { line in log.lines.withLock { $0.append(line) } }
        return harness
    }

    /// Ivy's signed transaction t1, posted for her.
    static func subscribe(_ harness: ServiceHarness, user: String = "ivy") throws {
        let t1 = try SignedFixtures.transaction("t1", original: "o1", from: "2020-03-15T00:00:00Z", to: "2020-06-15T00:00:00Z", signed: "2020-03-15T00:00:00Z")
        #expect(harness.call("POST", "/v1/users/\(user)/transactions", json: SignedFixtures.transactions([t1])).status == 200)
    }

    /// Apple's CONSUMPTION_REQUEST about t1, posted as Apple posts it.
    static func consumptionRequest(_ harness: ServiceHarness, signed: String = now) throws {
        let t1 = try SignedFixtures.transaction("t1", original: "o1", from: "2020-03-15T00:00:00Z", to: "2020-06-15T00:00:00Z", signed: signed)
        let body = try SignedFixtures.notification("CONSUMPTION_REQUEST", transaction: t1, signed: signed)
        #expect(harness.call("POST", "/v1/notifications/app-store", token: nil, json: body).status == 200)
    }

    /// A download check; answers whether it was readable.
    static func check(_ harness: ServiceHarness, _ user: String, _ issue: String) -> Bool? {
        harness.call("GET", "/v1/users/\(user)/issues/the-monthly/\(issue)").json?["readable"]?.bool
    }

    /// The harness's client of the fake, which does not wait before its own retries.
    static func client(_ harness: ServiceHarness) throws -> AppStoreServerAPIClient {
        try #require(try harness.service.appStoreServerAPIClient(sleep: { _ in }))
    }

    static func pending(_ harness: ServiceHarness) throws -> Int {
        try #require(harness.service.pendingConsumptionRequests)
    }

    @Test func consentedReader_isSentTheShareServed_withAValidToken() throws {
        let fake = try FakeAppStoreServerAPI(bundleId: SignedFixtures.bundleId)
        defer { fake.stop() }
        let log = LogLines()
        let harness = try Self.harness(fake, log: log)
        defer { harness.close() }
        try Self.subscribe(harness)
        #expect(Self.check(harness, "ivy", "2020-03") == true)
        #expect(Self.check(harness, "ivy", "2020-01") == false)
        #expect(harness.call("PUT", "/v1/users/ivy/consumption-consent", json: #"{"consented": true}"#).status == 200)
        try Self.consumptionRequest(harness)
        #expect(try Self.pending(harness) == 1)
        #expect(harness.service.sendDueConsumptionInformation(client: try Self.client(harness)) == 1)
        let seen = try #require(fake.seen.first)
        #expect(fake.seen.count == 1)
        #expect(seen.method == "PUT")
        #expect(seen.target == "/production/inApps/v2/transactions/consumption/t1")
        // 1 of the 3 issues t1 made readable was served: 33.333 %, rounded down.
        let sent = #"{"customerConsented":true,"consumptionPercentage":33333,"deliveryStatus":"DELIVERED","refundPreference":"GRANT_PRORATED","sampleContentProvided":false}"#
        #expect(seen.body == sent)
        #expect(seen.refusal == nil)
        let parts = try #require(seen.token).split(separator: ".").map(String.init)
        let claims = try JSONDocument(parsing: try Base64.decode(parts[1], .url)).root
        #expect(claims["iss"]?.string == FakeAppStoreServerAPI.issuerId)
        #expect(claims["aud"]?.string == "appstoreconnect-v1")
        #expect(claims["bid"]?.string == SignedFixtures.bundleId)
        #expect(try Self.pending(harness) == 0)
        #expect(log.all.contains("consumption: sent for transaction t1 (production) of user ivy: \(sent)"))
        #expect(!log.all.joined().contains(try #require(seen.token)))
        let metrics = harness.call("GET", "/metrics").body
        #expect(metrics.contains(#"masthead_consumption_requests_total{outcome="queued"} 1"#))
        #expect(metrics.contains(#"masthead_consumption_requests_total{outcome="sent"} 1"#))
        #expect(metrics.contains("masthead_consumption_requests_pending 0"))
        #expect(metrics.contains("masthead_issues_served_recorded_total 1"))
    }

    @Test func readerWithoutConsent_isSentNothing_andTheLogSaysWhy() throws {
        let fake = try FakeAppStoreServerAPI(bundleId: SignedFixtures.bundleId)
        defer { fake.stop() }
        let log = LogLines()
        let harness = try Self.harness(fake, log: log)
        defer { harness.close() }
        try Self.subscribe(harness)
        #expect(Self.check(harness, "ivy", "2020-03") == true)
        #expect(harness.call("PUT", "/v1/users/ivy/consumption-consent", json: #"{"consented": false}"#).status == 200)
        try Self.consumptionRequest(harness)
        #expect(harness.service.sendDueConsumptionInformation(client: try Self.client(harness)) == 1)
        #expect(fake.seen.isEmpty)
        #expect(try Self.pending(harness) == 0)
        #expect(
            log.all.contains(
                "consumption: not sent for transaction t1 (production): user ivy has not consented to sending consumption information"))
        #expect(harness.service.consumption.counted.notConsented == 1)
    }

    @Test func featureOff_recordsNoIssueServed_andQueuesNoRequest() throws {
        let log = LogLines()
        let harness = try Self.harness(nil, enabled: false, log: log)
        defer { harness.close() }
        try Self.subscribe(harness)
        #expect(Self.check(harness, "ivy", "2020-03") == true)
        try Self.consumptionRequest(harness)
        try harness.service.flushServedIssues()
        #expect(try harness.service.servedIssues(forUser: "ivy").isEmpty)
        #expect(harness.service.consumption.served.queuedCount == 0)
        #expect(try Self.pending(harness) == 0)
        #expect(log.all.isEmpty)
        #expect(!harness.call("GET", "/metrics").body.contains("masthead_consumption"))
    }

    @Test func appleServerError_isRetriedAfterTheBackoff_thenSent() throws {
        let fake = try FakeAppStoreServerAPI(bundleId: SignedFixtures.bundleId)
        defer { fake.stop() }
        let log = LogLines()
        let harness = try Self.harness(fake, log: log) { $0.appStoreServerAPIAttempts = 1 }
        defer { harness.close() }
        try Self.subscribe(harness)
        #expect(harness.call("PUT", "/v1/users/ivy/consumption-consent", json: #"{"consented": true}"#).status == 200)
        try Self.consumptionRequest(harness)
        fake.state.withLock { $0.failures = [(500, nil)] }
        let client = try Self.client(harness)
        #expect(harness.service.sendDueConsumptionInformation(client: client) == 1)
        #expect(fake.seen.count == 1)
        #expect(try Self.pending(harness) == 1)
        #expect(log.all.contains { $0.hasPrefix("consumption: attempt 1 for transaction t1 (production) failed, next at 2020-05-20T00:01:00Z: ") })
        // Not due before its backoff.
        #expect(harness.service.sendDueConsumptionInformation(client: client) == 0)
        harness.setNow("2020-05-20T00:01:00Z")
        #expect(harness.service.sendDueConsumptionInformation(client: client) == 1)
        #expect(fake.seen.map(\.method) == ["PUT", "PUT"])
        #expect(fake.seen[1].body == fake.seen[0].body)
        #expect(try Self.pending(harness) == 0)
        #expect(harness.service.consumption.counted.retried == 1)
        #expect(harness.service.consumption.counted.sent == 1)
    }

    @Test func requestPastApplesTwelveHours_isGivenUp_unsent() throws {
        let fake = try FakeAppStoreServerAPI(bundleId: SignedFixtures.bundleId)
        defer { fake.stop() }
        let log = LogLines()
        let harness = try Self.harness(fake, log: log)
        defer { harness.close() }
        try Self.subscribe(harness)
        #expect(harness.call("PUT", "/v1/users/ivy/consumption-consent", json: #"{"consented": true}"#).status == 200)
        try Self.consumptionRequest(harness)
        harness.setNow("2020-05-20T12:00:00Z")
        #expect(harness.service.sendDueConsumptionInformation(client: try Self.client(harness)) == 1)
        #expect(fake.seen.isEmpty)
        #expect(try Self.pending(harness) == 0)
        #expect(log.all.contains("consumption: gave up on transaction t1 (production) after 0 attempt(s): Apple's 12 hours have passed"))
    }

    @Test func requestAboutATransactionLinkedToNobody_isNotQueued_andLogged() throws {
        let log = LogLines()
        let harness = try Self.harness(nil, log: log)
        defer { harness.close() }
        try Self.consumptionRequest(harness)
        #expect(try Self.pending(harness) == 0)
        #expect(log.all == ["consumption: not queued: transaction t1 (production) is linked to no user"])
    }

    @Test func firstServed_isWrittenOncePerPair_keepingTheFirstInstant() throws {
        let harness = try Self.harness(nil)
        defer { harness.close() }
        try Self.subscribe(harness)
        #expect(Self.check(harness, "ivy", "2020-03") == true)
        harness.setNow("2020-05-21T00:00:00Z")
        #expect(Self.check(harness, "ivy", "2020-03") == true)
        #expect(Self.check(harness, "ivy", "2020-04") == true)
        #expect(Self.check(harness, "ivy", "2020-04") == true)
        #expect(Self.check(harness, "ivy", "2020-01") == false)
        try harness.service.flushServedIssues()
        let served = try harness.service.servedIssues(forUser: "ivy")
        #expect(
            served == [
                ServedIssue(userId: "ivy", publicationId: "the-monthly", issueId: "2020-03", firstServed: DateText.rfc3339("2020-05-20T00:00:00Z")!),
                ServedIssue(userId: "ivy", publicationId: "the-monthly", issueId: "2020-04", firstServed: DateText.rfc3339("2020-05-21T00:00:00Z")!),
            ])
        // One write per pair: the answers after the first were not queued again.
        #expect(harness.service.consumption.served.recordedCount == 2)
    }

    @Test func servedQueue_underAFlood_staysBounded_andADroppedPairComesBackLater() {
        let recorder = ServedIssueRecorder(maxQueued: 3, maxRemembered: 100)
        let at = Instant(milliseconds: 0)
        let asked = (0..<10).map { recorder.note(userId: "u\($0)", publicationId: "p", issueId: "i", at: { at }) }
        // Only the first pair asks for a drain; the queue holds three, the rest are dropped.
        #expect(asked == [.queuedFirst, .queued, .queued] + Array(repeating: .dropped, count: 7))
        #expect(recorder.queuedCount == 3)
        #expect(recorder.droppedCount == 7)
        #expect(recorder.take().map(\.userId) == ["u0", "u1", "u2"])
        // A dropped pair answered again is queued this time; a queued one is not queued twice.
        #expect(recorder.note(userId: "u5", publicationId: "p", issueId: "i", at: { at }) == .queuedFirst)
        #expect(recorder.note(userId: "u0", publicationId: "p", issueId: "i", at: { at }) == .known)
        #expect(recorder.take().map(\.userId) == ["u5"])
    }

    @Test func servedMemory_isEmptiedWhenFull_soItStaysBounded() {
        let recorder = ServedIssueRecorder(maxQueued: 100, maxRemembered: 2)
        let at = Instant(milliseconds: 0)
        for user in ["a", "b", "c"] { _ = recorder.note(userId: user, publicationId: "p", issueId: "i", at: { at }) }
        // "c" emptied the memory: "a" is queued again (the table keeps its first instant).
        _ = recorder.note(userId: "a", publicationId: "p", issueId: "i", at: { at })
        #expect(recorder.take().map(\.userId) == ["a", "b", "c", "a"])
    }

    @Test func consent_isStored_andReadBack_andABadBodyIsRefused() throws {
        let harness = try Self.harness(nil)
        defer { harness.close() }
        #expect(harness.call("GET", "/v1/users/ivy/consumption-consent").body == #"{"userId":"ivy","consented":false,"recorded":null}"#)
        let put = harness.call("PUT", "/v1/users/ivy/consumption-consent", json: #"{"consented": true}"#)
        #expect(put.status == 200)
        #expect(put.body == #"{"userId":"ivy","consented":true,"recorded":"2020-05-20T00:00:00Z"}"#)
        #expect(harness.call("GET", "/v1/users/ivy/consumption-consent").body == put.body)
        for (body, code, message) in [
            (#"{"consented": "yes"}"#, "invalid_consent", "$.consented: expected true or false"),
            (#"{"consented": true, "until": 1}"#, "invalid_consent", "$.until: unknown member"),
            (#"{}"#, "invalid_consent", "$.consented: missing"),
            (#"[true]"#, "invalid_consent", "$: expected an object"),
            (#"{"consented": tru"#, "invalid_json", "invalid JSON"),
        ] {
            let answer = harness.call("PUT", "/v1/users/ivy/consumption-consent", json: body)
            #expect(answer.status == 400, "\(body)")
            #expect(answer.json?["error"]?["code"]?.string == code, "\(body)")
            #expect(answer.json?["error"]?["message"]?.string?.contains(message) == true, "\(body): \(answer.body)")
        }
        // Nothing refused changed the consent.
        #expect(harness.call("GET", "/v1/users/ivy/consumption-consent").body == put.body)
    }

    /// A renewal's share counts only what it paid for: t1 (2020-03-15 to 04-15) made 2020-03 and
    /// 2020-04 readable, not 2020-05, which t2 paid for.
    @Test func share_ofAnEarlierTransaction_countsWhatItPaidFor() throws {
        let harness = try Self.harness(nil)
        defer { harness.close() }
        let t1 = try SignedFixtures.transaction("t1", original: "o1", from: "2020-03-15T00:00:00Z", to: "2020-04-15T00:00:00Z", signed: "2020-03-15T00:00:00Z")
        let t2 = try SignedFixtures.transaction("t2", original: "o1", from: "2020-04-15T00:00:00Z", to: "2020-05-15T00:00:00Z", signed: "2020-04-15T00:00:00Z")
        #expect(harness.call("POST", "/v1/users/ivy/transactions", json: SignedFixtures.transactions([t1, t2])).status == 200)
        #expect(Self.check(harness, "ivy", "2020-04") == true)
        #expect(Self.check(harness, "ivy", "2020-05") == true)
        try harness.service.flushServedIssues()
        let request = PendingConsumptionRequest(
            environment: .production, transactionId: "t1", userId: "ivy", received: harness.clock.read(), deadline: harness.clock.read(),
            nextAttempt: harness.clock.read())
        #expect(try harness.service.consumptionRequest(for: request, at: harness.clock.read()).consumptionPercentage == 50_000)
        let second = PendingConsumptionRequest(
            environment: .production, transactionId: "t2", userId: "ivy", received: harness.clock.read(), deadline: harness.clock.read(),
            nextAttempt: harness.clock.read())
        #expect(try harness.service.consumptionRequest(for: second, at: harness.clock.read()).consumptionPercentage == 100_000)
    }

    /// A streaming transaction's share counts what it lets the reader read now: the five issues
    /// of the window published by 2020-05-20, of which one was served.
    @Test func share_ofAStreamingTransaction_countsItsWindow() throws {
        let harness = try Self.harness(nil)
        defer { harness.close() }
        let t1 = try SignedFixtures.transaction(
            "t1", original: "o1", product: "com.example.reader", from: "2020-03-15T00:00:00Z", to: "2020-06-15T00:00:00Z", signed: "2020-03-15T00:00:00Z")
        #expect(harness.call("POST", "/v1/users/ivy/transactions", json: SignedFixtures.transactions([t1])).status == 200)
        #expect(Self.check(harness, "ivy", "2020-01") == true)
        try harness.service.flushServedIssues()
        let now = harness.clock.read()
        let request = PendingConsumptionRequest(environment: .production, transactionId: "t1", userId: "ivy", received: now, deadline: now, nextAttempt: now)
        #expect(try harness.service.consumptionRequest(for: request, at: now).consumptionPercentage == 20_000)
    }
}

/// The lines a service's consumption log wrote.
final class LogLines: Sendable {
    let lines = Mutex<[String]>([])
    var all: [String] { lines.withLock { $0 } }
}
