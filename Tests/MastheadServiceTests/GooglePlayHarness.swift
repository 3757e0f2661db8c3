import Foundation
import MastheadCrypto
import MastheadHTTP
import MastheadJSON
import MastheadService
import MastheadTestSupport
import Synchronization

/// A service taking in the Google Play purchases of `com.example.magazine` from a fake Google,
/// and the notifications and purchases its tests send.
enum GooglePlayHarness {
    static let package = "com.example.magazine"
    static let audience = "https://masthead.test/v1/notifications/google-play"

    /// Points `configuration` at `fake`: its keys URL, API and token endpoint, the test service
    /// account, quick retries (two tries).
    static func configure(_ configuration: inout ServiceConfiguration, _ fake: FakeGooglePlay) {
        configuration.googlePlayPackageName = package
        configuration.googlePlayPubSubAudience = audience
        configuration.googlePlayPubSubServiceAccount = FakeGooglePlay.pushServiceAccount
        configuration.googlePlayJWKSURL = fake.jwksURL
        configuration.googlePlayAPIURL = fake.apiURL
        configuration.googlePlayTokenURL = fake.tokenURL
        configuration.googlePlayAllowHTTP = true
        configuration.googlePlayAttempts = 2
        configuration.googlePlayBackoffMilliseconds = 1
        configuration.googlePlayServiceAccountFile = GooglePlayTestKeys.directory.appendingPathComponent("service-account.json").path
    }

    /// A service on a new database of `backend` asking `fake`, its clock at `now`.
    static func service(_ fake: FakeGooglePlay, backend: StoreBackend = .sqlite, now: String = "2020-02-20T12:00:01Z") throws -> ServiceHarness {
        try ServiceHarness(backend: backend, now: now) { configure(&$0, fake) }
    }

    /// A fake Google and a service on a new database of `backend` asking it, its clock at `now`;
    /// ``stop(_:_:)`` closes both.
    static func start(backend: StoreBackend = .sqlite, now: String = "2020-02-20T12:00:01Z") throws -> (FakeGooglePlay, ServiceHarness) {
        let fake = try FakeGooglePlay(packageName: package)
        do { return (fake, try service(fake, backend: backend, now: now)) } catch {
            fake.stop()
            throw error
        }
    }

    /// Closes what ``start(backend:now:)`` made.
    static func stop(_ fake: FakeGooglePlay, _ harness: ServiceHarness) {
        harness.close()
        fake.stop()
    }

    /// A Pub/Sub push body carrying `notification` (a DeveloperNotification's JSON).
    static func push(_ notification: String, messageId: String) -> [UInt8] {
        let data = Base64.encode(Array(notification.utf8), .standard)
        return Array(
            #"{"message": {"data": "\#(data)", "messageId": "\#(messageId)", "publishTime": "2020-02-20T12:00:01.123Z"}, "subscription": "projects/masthead-test/subscriptions/play-rtdn"}"#
                .utf8)
    }

    /// A subscription notification of `type` for `token`.
    static func subscriptionNotification(_ type: Int, token: String, eventTime: Int64 = 1_582_200_001_000) -> String {
        #"{"version": "1.0", "packageName": "\#(package)", "eventTimeMillis": "\#(eventTime)", "subscriptionNotification": {"version": "1.0", "notificationType": \#(type), "purchaseToken": "\#(token)", "subscriptionId": "the_monthly"}}"#
    }

    /// A voided purchase notification for the order `orderId` of `token` (`refundType` 1: full).
    static func voidedNotification(token: String, orderId: String, eventTime: Int64, refundType: Int = 1) -> String {
        #"{"version": "1.0", "packageName": "\#(package)", "eventTimeMillis": "\#(eventTime)", "voidedPurchaseNotification": {"purchaseToken": "\#(token)", "orderId": "\#(orderId)", "productType": 1, "refundType": \#(refundType)}}"#
    }

    /// Posts `notification` as Pub/Sub does, with a push token `fake` minted for the audience.
    static func notify(_ harness: ServiceHarness, _ fake: FakeGooglePlay, _ notification: String, messageId: String) throws -> ServiceHarness.Answer {
        harness.call("POST", "/v1/notifications/google-play", authorization: try fake.pushAuthorization(audience: audience), body: push(notification, messageId: messageId))
    }

    /// A request sent through the router, its answer awaited with a bound.
    final class Pending: Sendable {
        private let answer = Mutex<HTTPResponse?>(nil)
        private let done = DispatchSemaphore(value: 0)

        /// Sends the request; the answer is kept when it comes.
        init(_ harness: ServiceHarness, _ target: String, authorization: String?, body: [UInt8]) {
            let request = HTTPRequest(method: "POST", target: target, headers: authorization.map { [("Authorization", $0)] } ?? [], body: body)
            harness.router.handle(request) { [self] response in
                answer.withLock { $0 = response }
                done.signal()
            }
        }

        /// The answer, waited for at most `seconds`; nil when none came by then.
        func wait(seconds: Double = 10) -> HTTPResponse? {
            guard done.wait(timeout: .now() + seconds) == .success else { return nil }
            return answer.withLock { $0 }
        }
    }

    /// Posts `notification` as Pub/Sub does without waiting for the answer.
    static func notifyLater(_ harness: ServiceHarness, _ fake: FakeGooglePlay, _ notification: String, messageId: String) throws -> Pending {
        Pending(harness, "/v1/notifications/google-play", authorization: try fake.pushAuthorization(audience: audience), body: push(notification, messageId: messageId))
    }

    /// The app posting the purchase `token` for `user`, without waiting for the answer.
    static func postLater(_ harness: ServiceHarness, user: String, token: String) -> Pending {
        Pending(
            harness, "/v1/users/\(user)/google-play/purchases", authorization: "Bearer api-token",
            body: Array(#"{"packageName": "\#(package)", "purchaseToken": "\#(token)"}"#.utf8))
    }

    /// The app posting the purchase `token` for `user`.
    static func post(_ harness: ServiceHarness, user: String, token: String, productId: String? = nil) -> ServiceHarness.Answer {
        let product = productId.map { #", "productId": "\#($0)""# } ?? ""
        return harness.call("POST", "/v1/users/\(user)/google-play/purchases", json: #"{"packageName": "\#(package)", "purchaseToken": "\#(token)"\#(product)}"#)
    }

    /// Table 6-1's first order: bought Feb 20, token `token-a`.
    static let firstOrder = "GPA.3345-1234-5678-90123"

    /// Token A's subscription in `state`: bought Feb 20 12:00, its latest order `latestOrderId`
    /// ending at `expiry`.
    static func tokenA(
        _ state: String, latestOrderId: String = firstOrder, expiry: String = "2020-03-20T12:00:00Z", acknowledged: Bool = false, account: String? = nil,
        autoRenew: Bool = true
    ) -> FakeGooglePlay.Subscription {
        FakeGooglePlay.Subscription(
            state: state, startTime: "2020-02-20T12:00:00Z", latestOrderId: latestOrderId, acknowledged: acknowledged, obfuscatedExternalAccountId: account,
            lineItems: [.init(productId: "the_monthly", basePlanId: "monthly", expiryTime: expiry, latestSuccessfulOrderId: latestOrderId, autoRenewEnabled: autoRenew)])
    }

    /// Token B, linked to token A: the resubscription of Jun 17, ending Jul 17.
    static func tokenB(acknowledged: Bool = false) -> FakeGooglePlay.Subscription {
        FakeGooglePlay.Subscription(
            state: "SUBSCRIPTION_STATE_ACTIVE", startTime: "2020-06-17T12:00:00Z", latestOrderId: "GPA.3399-9876-5432-10987", linkedPurchaseToken: "token-a",
            acknowledged: acknowledged,
            lineItems: [
                .init(productId: "the_monthly", basePlanId: "monthly", expiryTime: "2020-07-17T12:00:00Z", latestSuccessfulOrderId: "GPA.3399-9876-5432-10987")
            ])
    }
}
