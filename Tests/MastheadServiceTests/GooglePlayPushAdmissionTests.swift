import Foundation
import MastheadHTTP
@testable import MastheadService
import MastheadTestSupport
import Synchronization
import Testing

/// Pub/Sub pushes are judged on the event loop: a push that is not Google's never takes one of
/// the threads that ask Google, and Google's keys are fetched once however many pushes come first.
struct GooglePlayPushAdmissionTests {
    typealias Play = GooglePlayHarness

    /// With every Google thread held by a slow Google, a push whose token is forged (or missing)
    /// is still answered 401 at once; a genuine one is 503 busy.
    @Test func forgedPush_is401AtOnce_whileEveryGoogleThreadIsBusy() throws {
        let (fake, harness) = try Play.start()
        defer { Play.stop(fake, harness) }
        // Google's keys are had: a test notification fetched them.
        let test = #"{"version": "1.0", "packageName": "\#(Play.package)", "eventTimeMillis": "1582200001000", "testNotification": {"version": "1.0"}}"#
        #expect(try Play.notify(harness, fake, test, messageId: "t1").status == 200)
        // Its Google thread is let go just after the answer: wait for it, so each post below takes one.
        let google = try #require(harness.service.googlePlay)
        let idle = Date().addingTimeInterval(10)
        while google.threadsInUse > 0, Date() < idle { usleep(1_000) }
        #expect(google.threadsInUse == 0)
        fake.state.withLock { state in
            for index in 0..<GooglePlayConnection.maxConcurrent { state.set("token-\(index)", Play.tokenA("SUBSCRIPTION_STATE_ACTIVE")) }
            state.held = [.subscription]
        }
        let busy = (0..<GooglePlayConnection.maxConcurrent).map { Play.postLater(harness, user: "ivy", token: "token-\($0)") }
        #expect(google.threadsInUse == GooglePlayConnection.maxConcurrent)
        #expect(fake.waitUntilHolding(GooglePlayConnection.maxConcurrent, .subscription))
        var forged = FakeGooglePlay.PushToken(audience: Play.audience)
        forged.forged = true
        let body = Play.push(Play.subscriptionNotification(4, token: "token-0"), messageId: "m1")
        for authorization in ["Bearer " + (try fake.mint(forged)), nil] {
            let answer = Play.Pending(harness, "/v1/notifications/google-play", authorization: authorization, body: body).wait(seconds: 5)
            #expect(answer?.status == 401, "\(authorization ?? "none")")
        }
        let genuine = try Play.notifyLater(harness, fake, Play.subscriptionNotification(4, token: "token-0"), messageId: "m1").wait(seconds: 10)
        #expect(genuine?.status == 503)
        fake.release(.subscription)
        for pending in busy { #expect(pending.wait() != nil) }
    }

    /// Pushes that come while Google's keys are first fetched do not fetch them again: they are
    /// 503 with `Retry-After` (Pub/Sub delivers them again), and the first is applied once the keys come.
    @Test func pushesBeforeTheKeys_fetchThemOnce() throws {
        let (fake, harness) = try Play.start()
        defer { Play.stop(fake, harness) }
        fake.state.withLock { state in
            state.set("token-a", Play.tokenA("SUBSCRIPTION_STATE_ACTIVE"))
            state.held = [.jwks]
        }
        let first = try Play.notifyLater(harness, fake, Play.subscriptionNotification(4, token: "token-a"), messageId: "m1")
        #expect(fake.waitUntilHolding(1, .jwks))
        for index in 2...4 {
            let answer = try Play.notifyLater(harness, fake, Play.subscriptionNotification(4, token: "token-a"), messageId: "m\(index)").wait(seconds: 5)
            #expect(answer?.status == 503)
            #expect(answer?.headers.contains { $0.name == "Retry-After" } == true)
        }
        fake.release(.jwks)
        #expect(first.wait()?.status == 200)
        #expect(fake.seen(.jwks).count == 1)
    }

    /// A failed first fetch of Google's keys is not tried again by the next push at once: that
    /// push is 503 too, and Google is asked once.
    @Test func aFailedKeyFetch_isNotRepeatedByEachPush() throws {
        let (fake, harness) = try Play.start()
        defer { Play.stop(fake, harness) }
        fake.state.withLock { $0.failures = [.init(status: 500, endpoint: .jwks)] }
        let notification = Play.subscriptionNotification(4, token: "token-a")
        #expect(try Play.notify(harness, fake, notification, messageId: "m1").status == 503)
        #expect(try Play.notify(harness, fake, notification, messageId: "m1").status == 503)
        #expect(fake.seen(.jwks).count == 1)
    }
}
