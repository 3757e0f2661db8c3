import Foundation
import MastheadHTTP
import Masthead
@testable import MastheadService
import MastheadFormats
import MastheadStorage
import MastheadTestSupport
import Synchronization
import Testing

/// Acknowledging Google Play purchases: after the answer, by the acknowledgement thread; one
/// instance at a time for a purchase; given up when Google will never take it.
struct GooglePlayAcknowledgementTests {
    typealias Play = GooglePlayHarness

    /// Waits until `condition` holds, at most `seconds`; answers whether it did.
    static func eventually(seconds: Double = 20, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            guard Date() < deadline else { return false }
            usleep(2_000)
        }
        return true
    }

    /// With Google holding every acknowledgement, a notification and the app's post are answered
    /// 200 once stored; the acknowledgement thread acknowledges afterwards.
    @Test func notificationAndPost_areAnswered_beforeTheAcknowledgement() throws {
        let (fake, harness) = try Play.start()
        defer { Play.stop(fake, harness) }
        fake.state.withLock { state in
            state.set("token-a", Play.tokenA("SUBSCRIPTION_STATE_ACTIVE"))
            state.held = [.acknowledge]
        }
        harness.service.startAcknowledgingGooglePlayPurchases(log: { _ in })
        let notified = try Play.notifyLater(harness, fake, Play.subscriptionNotification(4, token: "token-a"), messageId: "m1").wait(seconds: 10)
        #expect(notified?.status == 200)
        #expect(Play.postLater(harness, user: "ivy", token: "token-a").wait(seconds: 10)?.status == 200)
        #expect(fake.waitUntilHolding(1, .acknowledge))
        #expect(fake.state.withLock { $0.subscription("token-a")?.acknowledged } == false)
        fake.release(.acknowledge)
        #expect(Self.eventually { fake.state.withLock { $0.subscription("token-a")?.acknowledged } == true })
    }

    /// An acknowledgement Google refuses for good (404, 400) is given up with its reason: not
    /// tried again, nor owed again when the token is read again.
    @Test(arguments: StoreBackend.tested)
    func acknowledgement_refusedForGood_isGivenUp(backend: StoreBackend) throws {
        let (fake, harness) = try Play.start(backend: backend)
        defer { Play.stop(fake, harness) }
        fake.state.withLock { state in
            state.set("token-a", Play.tokenA("SUBSCRIPTION_STATE_ACTIVE"))
            state.set("token-b", Play.tokenB())
            state.failures = [.init(status: 404, endpoint: .acknowledge), .init(status: 400, endpoint: .acknowledge)]
        }
        #expect(Play.post(harness, user: "ivy", token: "token-a").status == 200)
        #expect(Play.post(harness, user: "ivy", token: "token-b").status == 200)
        let lines = Mutex<[String]>([])
        let report = try harness.service.acknowledgeDueGooglePlayPurchases(log: { line in lines.withLock { $0.append(line) } })
        #expect(report == .init(acknowledged: 0, failed: 0, givenUp: 2))
        #expect(lines.withLock { $0.count } == 2)
        let stored = try #require(try harness.service.answerWrite { store in try store.googlePlayPurchase(token: "token-a") })
        #expect(stored.nextAcknowledgement == nil)
        #expect(stored.acknowledgementError?.hasPrefix("given up: ") == true, "\(stored.acknowledgementError ?? "none")")
        // Read again (a notification): still given up; a day later nothing is tried.
        #expect(try Play.notify(harness, fake, Play.subscriptionNotification(2, token: "token-a"), messageId: "m1").status == 200)
        harness.setNow("2020-02-21T12:00:01Z")
        #expect(try harness.service.acknowledgeDueGooglePlayPurchases() == .init())
        #expect(fake.seen(.acknowledge).count == 2)
    }

    /// Google's three days run from when a purchase completed, which only Google knows: a
    /// purchase first read pending and completed four days later is still asked of Google and
    /// acknowledged, not given up unasked.
    @Test(arguments: StoreBackend.tested)
    func acknowledgement_owedDaysAfterTheFirstRead_isStillAskedOfGoogle(backend: StoreBackend) throws {
        let (fake, harness) = try Play.start(backend: backend)
        defer { Play.stop(fake, harness) }
        fake.state.withLock { $0.set("token-a", Play.tokenA("SUBSCRIPTION_STATE_PENDING")) }
        #expect(Play.post(harness, user: "ivy", token: "token-a").status == 200)
        #expect(try harness.service.acknowledgeDueGooglePlayPurchases() == .init())
        harness.setNow("2020-02-24T12:00:01Z")
        fake.state.withLock { $0.set("token-a", Play.tokenA("SUBSCRIPTION_STATE_ACTIVE")) }
        #expect(Play.post(harness, user: "ivy", token: "token-a").status == 200)
        #expect(try harness.service.acknowledgeDueGooglePlayPurchases() == .init(acknowledged: 1, failed: 0, givenUp: 0))
        #expect(fake.seen(.acknowledge).count == 1)
        #expect(Self.gauge(harness) == 0)
    }

    /// A claimed acknowledgement is not claimed again (by another instance on the database)
    /// until its lease ends, unless its outcome is recorded.
    @Test(arguments: StoreBackend.tested)
    func acknowledgement_claimed_isNotClaimedAgainWithinItsLease(backend: StoreBackend) throws {
        let (fake, harness) = try Play.start(backend: backend)
        defer { Play.stop(fake, harness) }
        fake.state.withLock { $0.set("token-a", Play.tokenA("SUBSCRIPTION_STATE_ACTIVE")) }
        #expect(Play.post(harness, user: "ivy", token: "token-a").status == 200)
        let now = DateText.rfc3339("2020-02-20T12:00:01Z")!
        let lease = now.adding(milliseconds: GooglePlayAcknowledgement.leaseMilliseconds)
        let claim = { (at: Instant) throws -> StoredGooglePlayPurchase? in try harness.service.answerWrite { store in try store.claimGooglePlayAcknowledgement(now: at, leaseUntil: lease) } }
        #expect(try claim(now)?.purchaseToken == "token-a")
        #expect(try claim(now) == nil)
        // Meanwhile the pass of another instance asks Google nothing.
        #expect(try harness.service.acknowledgeDueGooglePlayPurchases() == .init())
        #expect(fake.seen(.acknowledge).isEmpty)
        // The lease over (the claimer stopped without an outcome): due again.
        #expect(try claim(lease)?.purchaseToken == "token-a")
    }

    /// `masthead_google_play_unacknowledged_24h` in `/metrics`.
    static func gauge(_ harness: ServiceHarness) -> Int? {
        GooglePlayServiceTests.gauge(harness)
    }
}
