import Foundation
import Masthead
import MastheadFormats
import MastheadJSON
import MastheadStorage
@testable import MastheadService
import MastheadTestSupport
import Synchronization
import Testing

/// Google Play end to end (R18): Pub/Sub pushes and the app's posts to the service, the service
/// asking a fake Google over real sockets, on both store backends.
struct GooglePlayServiceTests {
    typealias Play = GooglePlayHarness

    static let issues = ["2020-02", "2020-03", "2020-04", "2020-05", "2020-06", "2020-07"]

    /// The issues `user` may read at `at`, by the download check.
    static func readable(_ harness: ServiceHarness, _ user: String, at: String) -> [String] {
        issues.filter { ServiceRouterTests.readable(harness, user, $0, at: at) == true }
    }

    /// The state of `user`'s subscription to The Monthly at `at`, by the entitlements.
    static func state(_ harness: ServiceHarness, _ user: String, at: String) -> String? {
        guard let publications = harness.call("GET", "/v1/users/\(user)/entitlements?at=\(at)").json?["publications"] else { return nil }
        return Array(publications.elements).first?["status"]?["state"]?.string
    }

    /// Table 6-1 replayed as Google Play sends it: the purchase (the app posts it), its renewal,
    /// cancellation and expiry, each a notification after which Masthead reads the token, then the
    /// resubscription through a linked token; every row answers as the App Store receipt does.
    @Test(arguments: StoreBackend.tested)
    func R18_table61_throughNotificationsAndReads_answersEveryRow(backend: StoreBackend) throws {
        let (fake, harness) = try Play.start(backend: backend)
        defer { Play.stop(fake, harness) }
        fake.state.withLock { $0.set("token-a", Play.tokenA("SUBSCRIPTION_STATE_ACTIVE")) }
        // Bought: Pub/Sub's notification, then the app's post linking it to the reader.
        #expect(try Play.notify(harness, fake, Play.subscriptionNotification(4, token: "token-a"), messageId: "m1").body == #"{"stored":true,"applied":true}"#)
        let posted = Play.post(harness, user: "ivy", token: "token-a")
        #expect(posted.status == 200, "\(posted.body)")
        #expect(posted.body.contains(#""user_id":"ivy""#))
        // Acknowledged after the answers, by the acknowledgement thread's pass.
        #expect(try harness.service.acknowledgeDueGooglePlayPurchases() == .init(acknowledged: 1))
        #expect(fake.state.withLock { $0.subscription("token-a")?.acknowledged } == true)
        // Renewed Mar 20, cancelled Mar 25 (ends Apr 20), expired Apr 20.
        let steps: [(now: String, type: Int, state: FakeGooglePlay.Subscription)] = [
            ("2020-03-20T12:00:01Z", 2, Play.tokenA("SUBSCRIPTION_STATE_ACTIVE", latestOrderId: Play.firstOrder + "..0", expiry: "2020-04-20T12:00:00Z", acknowledged: true)),
            ("2020-03-25T09:00:00Z", 3, Play.tokenA("SUBSCRIPTION_STATE_CANCELED", latestOrderId: Play.firstOrder + "..0", expiry: "2020-04-20T12:00:00Z", acknowledged: true, autoRenew: false)),
            ("2020-04-20T12:00:01Z", 13, Play.tokenA("SUBSCRIPTION_STATE_EXPIRED", latestOrderId: Play.firstOrder + "..0", expiry: "2020-04-20T12:00:00Z", acknowledged: true, autoRenew: false)),
        ]
        for (index, step) in steps.enumerated() {
            harness.setNow(step.now)
            fake.state.withLock { $0.set("token-a", step.state) }
            let answer = try Play.notify(harness, fake, Play.subscriptionNotification(step.type, token: "token-a"), messageId: "m\(index + 2)")
            #expect(answer.body == #"{"stored":true,"applied":true}"#, "\(step.now): \(answer.body)")
        }
        // Resubscribed Jun 17 on a new token linked to the first: the reader's without a post.
        harness.setNow("2020-06-17T12:00:01Z")
        fake.state.withLock { $0.set("token-b", Play.tokenB()) }
        #expect(try Play.notify(harness, fake, Play.subscriptionNotification(4, token: "token-b"), messageId: "m5").status == 200)
        #expect(try harness.service.acknowledgeDueGooglePlayPurchases() == .init(acknowledged: 1))
        #expect(fake.state.withLock { $0.subscription("token-b")?.acknowledged } == true)
        harness.setNow("2020-07-02T00:00:00Z")
        for row in Table61.rows {
            #expect(Self.readable(harness, "ivy", at: row.at) == row.readable, "\(row.at)")
            #expect(Self.state(harness, "ivy", at: row.at) == row.state, "\(row.at)")
        }
    }

    /// A reader with an App Store subscription (Table 6-1's receipt) and a Google Play one during
    /// its lapse (Apr 25 – May 25) may read the union: May's issue only through Google Play.
    @Test(arguments: StoreBackend.tested)
    func R18_aReaderWithBothStores_getsTheUnion(backend: StoreBackend) throws {
        let (fake, harness) = try Play.start(backend: backend, now: "2020-04-25T10:00:00Z")
        defer { Play.stop(fake, harness) }
        #expect(harness.call("POST", "/v1/users/ivy/receipts", body: try ServiceHarness.example("table-6-1")).status == 200)
        let may = FakeGooglePlay.Subscription(
            state: "SUBSCRIPTION_STATE_CANCELED", startTime: "2020-04-25T10:00:00Z", latestOrderId: "GPA.5555-0000-0000-00001", acknowledged: true,
            lineItems: [.init(productId: "the_monthly", basePlanId: "monthly", expiryTime: "2020-05-25T10:00:00Z", autoRenewEnabled: false)])
        fake.state.withLock { $0.set("token-may", may) }
        #expect(Play.post(harness, user: "ivy", token: "token-may").status == 200)
        harness.setNow("2020-07-02T00:00:00Z")
        #expect(Self.readable(harness, "ivy", at: "2020-07-01T12:00:00Z") == Self.issues)
        #expect(Self.readable(harness, "ivy", at: "2020-05-10T00:00:00Z") == ["2020-02", "2020-03", "2020-04", "2020-05"])
        // The check answers May from the Play order alone.
        let check = harness.call("GET", "/v1/users/ivy/issues/the-monthly/2020-05?at=2020-07-01T12:00:00Z")
        #expect(check.json?["readable"]?.bool == true, "\(check.body)")
        // Acknowledged already at Google: not acknowledged again.
        #expect(fake.seen(.acknowledge).isEmpty)
    }

    /// A push whose OIDC token is forged (another key), expired, for another audience or from
    /// another account, or missing, is 401: Google is not asked and nothing is stored.
    @Test(arguments: StoreBackend.tested)
    func pushTokens_forgedExpiredOrForAnotherAudience_are401_andNothingIsStored(backend: StoreBackend) throws {
        let (fake, harness) = try Play.start(backend: backend)
        defer { Play.stop(fake, harness) }
        fake.state.withLock { $0.set("token-a", Play.tokenA("SUBSCRIPTION_STATE_ACTIVE")) }
        let now = Int64(Date().timeIntervalSince1970)
        var forged = FakeGooglePlay.PushToken(audience: Play.audience)
        forged.forged = true
        var expired = FakeGooglePlay.PushToken(audience: Play.audience)
        (expired.issuedAt, expired.expiresAt) = (now - 7200, now - 3600)
        let otherAudience = FakeGooglePlay.PushToken(audience: "https://elsewhere.test/push")
        let otherAccount = FakeGooglePlay.PushToken(audience: Play.audience, email: "intruder@evil.iam.gserviceaccount.com")
        var unverified = FakeGooglePlay.PushToken(audience: Play.audience)
        unverified.emailVerified = false
        let body = Play.push(Play.subscriptionNotification(4, token: "token-a"), messageId: "m1")
        var authorizations: [String?] = [nil, "Basic dXNlcjpwYXNz"]
        for token in [forged, expired, otherAudience, otherAccount, unverified] { authorizations.append("Bearer " + (try fake.mint(token))) }
        for authorization in authorizations {
            let answer = harness.call("POST", "/v1/notifications/google-play", authorization: authorization, body: body)
            #expect(answer.status == 401, "\(authorization ?? "none"): \(answer.body)")
            #expect(answer.json?["error"]?["code"]?.string == "google_play_push_refused")
        }
        #expect(fake.seen(.subscription).isEmpty)
        #expect(fake.seen(.token).isEmpty)
        // Nothing stored: the same message, authenticated, is applied (not a duplicate).
        #expect(try Play.notify(harness, fake, Play.subscriptionNotification(4, token: "token-a"), messageId: "m1").body == #"{"stored":true,"applied":true}"#)
    }

    /// A one-time product (the May issue bought on its own, R13): its notification reads it with
    /// `purchases.products.get` and acknowledges it as a product; the app's post with its
    /// `productId` links it, and the reader may read May's issue.
    @Test(arguments: StoreBackend.tested)
    func R18_R13_oneTimeProduct_isReadAcknowledgedAndLinked(backend: StoreBackend) throws {
        let (fake, harness) = try Play.start(backend: backend, now: "2020-05-10T09:00:01Z")
        defer { Play.stop(fake, harness) }
        fake.state.withLock { $0.set("token-p", FakeGooglePlay.Product(productId: "issue_2020_05", purchaseTimeMillis: 1_589_101_200_000, orderId: "GPA.7777-0000-0000-00001")) }
        let notification = #"{"version": "1.0", "packageName": "\#(Play.package)", "eventTimeMillis": "1589101201000", "oneTimeProductNotification": {"version": "1.0", "notificationType": 1, "purchaseToken": "token-p", "sku": "issue_2020_05"}}"#
        #expect(try Play.notify(harness, fake, notification, messageId: "p1").body == #"{"stored":true,"applied":true}"#)
        #expect(fake.seen(.product).map(\.target) == ["/androidpublisher/v3/applications/\(Play.package)/purchases/products/issue_2020_05/tokens/token-p"])
        #expect(try harness.service.acknowledgeDueGooglePlayPurchases() == .init(acknowledged: 1))
        #expect(fake.seen(.acknowledge).map(\.target) == ["/androidpublisher/v3/applications/\(Play.package)/purchases/products/issue_2020_05/tokens/token-p:acknowledge"])
        #expect(fake.state.withLock { $0.product("token-p")?.acknowledged } == true)
        let posted = Play.post(harness, user: "ivy", token: "token-p", productId: "issue_2020_05")
        #expect(posted.status == 200, "\(posted.body)")
        #expect(Self.readable(harness, "ivy", at: "2020-07-01T12:00:00Z") == ["2020-05"])
        #expect(fake.seen(.acknowledge).count == 1)
    }

    /// A message Pub/Sub delivers twice is applied once: the second delivery, though Google now
    /// says something else, changes nothing.
    @Test(arguments: StoreBackend.tested)
    func duplicateMessageId_isAppliedOnce(backend: StoreBackend) throws {
        let (fake, harness) = try Play.start(backend: backend)
        defer { Play.stop(fake, harness) }
        fake.state.withLock { $0.set("token-a", Play.tokenA("SUBSCRIPTION_STATE_ACTIVE", acknowledged: true)) }
        #expect(Play.post(harness, user: "ivy", token: "token-a").status == 200)
        harness.setNow("2020-03-20T12:00:01Z")
        let renewal = Play.tokenA("SUBSCRIPTION_STATE_ACTIVE", latestOrderId: Play.firstOrder + "..0", expiry: "2020-04-20T12:00:00Z", acknowledged: true)
        fake.state.withLock { $0.set("token-a", renewal) }
        let notification = Play.subscriptionNotification(2, token: "token-a")
        #expect(try Play.notify(harness, fake, notification, messageId: "renewal-1").body == #"{"stored":true,"applied":true}"#)
        // Google now says the renewal was refused a day later; the same message again is not applied.
        harness.setNow("2020-03-21T12:00:00Z")
        fake.state.withLock { $0.set("token-a", Play.tokenA("SUBSCRIPTION_STATE_EXPIRED", latestOrderId: Play.firstOrder + "..0", expiry: "2020-03-21T12:00:00Z", acknowledged: true)) }
        #expect(try Play.notify(harness, fake, notification, messageId: "renewal-1").body == #"{"stored":false,"applied":false,"duplicate":true}"#)
        #expect(Self.readable(harness, "ivy", at: "2020-04-01T12:00:00Z") == ["2020-02", "2020-03", "2020-04"])
        // A new message id is applied.
        #expect(try Play.notify(harness, fake, Play.subscriptionNotification(13, token: "token-a"), messageId: "expiry-1").body == #"{"stored":true,"applied":true}"#)
        #expect(Self.readable(harness, "ivy", at: "2020-04-01T12:00:00Z") == ["2020-02", "2020-03"])
    }

    /// An acknowledgement Google answers 500 is stored as owed and tried again by the next pass;
    /// the gauge counts it once a day has passed, and not once it is acknowledged.
    @Test(arguments: StoreBackend.tested)
    func acknowledgement_failedWith500_isRetried_andTheGaugeCountsIt(backend: StoreBackend) throws {
        let (fake, harness) = try Play.start(backend: backend)
        defer { Play.stop(fake, harness) }
        fake.state.withLock { state in
            state.set("token-a", Play.tokenA("SUBSCRIPTION_STATE_ACTIVE"))
            // Both tries of the acknowledgement.
            state.failures = [.init(status: 500, endpoint: .acknowledge), .init(status: 500, endpoint: .acknowledge)]
        }
        #expect(try Play.notify(harness, fake, Play.subscriptionNotification(4, token: "token-a"), messageId: "m1").body == #"{"stored":true,"applied":true}"#)
        #expect(try harness.service.acknowledgeDueGooglePlayPurchases() == .init(failed: 1))
        #expect(fake.seen(.acknowledge).map(\.status) == [500, 500])
        #expect(fake.state.withLock { $0.subscription("token-a")?.acknowledged } == false)
        #expect(Self.gauge(harness) == 0)
        harness.setNow("2020-02-21T12:00:02Z")
        #expect(Self.gauge(harness) == 1)
        let report = try harness.service.acknowledgeDueGooglePlayPurchases()
        #expect(report == .init(acknowledged: 1, failed: 0))
        #expect(fake.state.withLock { $0.subscription("token-a")?.acknowledged } == true)
        #expect(Self.gauge(harness) == 0)
        // Nothing owed any more: the next pass asks Google nothing.
        #expect(try harness.service.acknowledgeDueGooglePlayPurchases() == .init())
        #expect(fake.seen(.acknowledge).count == 3)
    }

    /// `masthead_google_play_unacknowledged_24h` in `/metrics`.
    static func gauge(_ harness: ServiceHarness) -> Int? {
        let text = harness.call("GET", "/metrics").body
        return text.split(separator: "\n").first { $0.hasPrefix("masthead_google_play_unacknowledged_24h ") }.flatMap { Int($0.split(separator: " ")[1]) }
    }

    /// A voided purchase notification revokes the refunded order (R5.1) once the Voided
    /// Purchases API lists its void, at the instant Google lists (not the body's `eventTime`):
    /// what it gave is no longer readable from then on; sent twice, it is applied once.
    @Test(arguments: StoreBackend.tested)
    func R18_R5_1_voidedPurchaseNotification_revokesTheOrderAtTheListedInstant(backend: StoreBackend) throws {
        let (fake, harness) = try Play.start(backend: backend)
        defer { Play.stop(fake, harness) }
        fake.state.withLock { $0.set("token-a", Play.tokenA("SUBSCRIPTION_STATE_ACTIVE", acknowledged: true)) }
        #expect(Play.post(harness, user: "ivy", token: "token-a").status == 200)
        #expect(Self.readable(harness, "ivy", at: "2020-03-10T12:00:00Z") == ["2020-02", "2020-03"])
        let listed = Int64(Date().timeIntervalSince1970 * 1000) - 3_600_000
        fake.state.withLock { state in
            state.voided = [.init(purchaseToken: "token-a", orderId: Play.firstOrder, purchaseTimeMillis: 1_582_200_000_000, voidedTimeMillis: listed)]
        }
        // The body claims Mar 5, 2020; Google lists the void an hour ago.
        let voided = Play.voidedNotification(token: "token-a", orderId: Play.firstOrder, eventTime: 1_583_409_600_000)
        #expect(try Play.notify(harness, fake, voided, messageId: "void-1").body == #"{"stored":true,"applied":true}"#)
        #expect(try Play.notify(harness, fake, voided, messageId: "void-1").body == #"{"stored":false,"applied":false,"duplicate":true}"#)
        #expect(Self.readable(harness, "ivy", at: "2030-01-01T00:00:00Z") == [])
        #expect(Self.readable(harness, "ivy", at: "2020-03-10T12:00:00Z") == ["2020-02", "2020-03"])
    }

    /// A voided purchase notification the Voided Purchases API does not list revokes nothing:
    /// within an hour of its event 503 (Google may list it a little later; Pub/Sub delivers it
    /// again), after that (replayed, or not Google's) 200 `"applied": false`, its message recorded.
    @Test(arguments: StoreBackend.tested)
    func voidedPurchaseNotification_notListedByGoogle_isNotApplied(backend: StoreBackend) throws {
        let (fake, harness) = try Play.start(backend: backend)
        defer { Play.stop(fake, harness) }
        fake.state.withLock { $0.set("token-a", Play.tokenA("SUBSCRIPTION_STATE_ACTIVE", acknowledged: true)) }
        #expect(Play.post(harness, user: "ivy", token: "token-a").status == 200)
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        // Google lists another order's void only.
        fake.state.withLock { state in
            state.voided = [.init(purchaseToken: "token-a", orderId: Play.firstOrder + "..0", purchaseTimeMillis: 1_582_200_000_000, voidedTimeMillis: now - 60_000)]
        }
        // Notified a minute ago: Google may not list it yet, so Pub/Sub is to deliver it again.
        let recent = Play.voidedNotification(token: "token-a", orderId: Play.firstOrder, eventTime: now - 60_000)
        let retried = try Play.notify(harness, fake, recent, messageId: "void-0")
        #expect(retried.status == 503, "\(retried.body)")
        #expect(retried.json?["error"]?["code"]?.string == "google_play_unavailable", "\(retried.body)")
        #expect(fake.seen(.voidedPurchases).count == 1)
        // Notified two hours ago and still not listed: recorded, not applied.
        let voided = Play.voidedNotification(token: "token-a", orderId: Play.firstOrder, eventTime: now - 7_200_000)
        let answer = try Play.notify(harness, fake, voided, messageId: "void-1")
        #expect(answer.status == 200, "\(answer.body)")
        #expect(answer.json?["applied"]?.bool == false, "\(answer.body)")
        #expect(fake.seen(.voidedPurchases).count == 2)
        #expect(Self.readable(harness, "ivy", at: "2030-01-01T00:00:00Z") == ["2020-02", "2020-03"])
        #expect(try Play.notify(harness, fake, voided, messageId: "void-1").body.contains(#""duplicate":true"#))
    }

    /// A void of an order that bought two line items voids both (the second is stored as
    /// `orderId/playProductId`; Google voids the order's id).
    @Test(arguments: StoreBackend.tested)
    func voidOfAnOrderOfTwoLineItems_revokesBoth(backend: StoreBackend) throws {
        let (fake, harness) = try Play.start(backend: backend)
        defer { Play.stop(fake, harness) }
        let items: [FakeGooglePlay.LineItem] = ["monthly", "premium-monthly"].map {
            .init(productId: "the_monthly", basePlanId: $0, expiryTime: "2020-03-20T12:00:00Z", latestSuccessfulOrderId: Play.firstOrder)
        }
        let both = FakeGooglePlay.Subscription(
            state: "SUBSCRIPTION_STATE_ACTIVE", startTime: "2020-02-20T12:00:00Z", latestOrderId: Play.firstOrder, acknowledged: true, lineItems: items)
        fake.state.withLock { $0.set("token-a", both) }
        #expect(Play.post(harness, user: "ivy", token: "token-a").status == 200)
        let listed = Int64(Date().timeIntervalSince1970 * 1000) - 60_000
        fake.state.withLock { state in
            state.voided = [.init(purchaseToken: "token-a", orderId: Play.firstOrder, purchaseTimeMillis: 1_582_200_000_000, voidedTimeMillis: listed)]
        }
        let voided = Play.voidedNotification(token: "token-a", orderId: Play.firstOrder, eventTime: listed)
        #expect(try Play.notify(harness, fake, voided, messageId: "void-1").body == #"{"stored":true,"applied":true}"#)
        #expect(Self.readable(harness, "ivy", at: "2030-01-01T00:00:00Z") == [])
    }

    /// The Voided Purchases API, polled by `masthead refresh` (every page), revokes an order whose
    /// notification never came.
    @Test(arguments: StoreBackend.tested)
    func R18_R5_1_voidedPurchasesPoll_revokesTheOrder(backend: StoreBackend) throws {
        let (fake, harness) = try Play.start(backend: backend)
        defer { Play.stop(fake, harness) }
        fake.state.withLock { $0.set("token-a", Play.tokenA("SUBSCRIPTION_STATE_ACTIVE", acknowledged: true)) }
        #expect(Play.post(harness, user: "ivy", token: "token-a").status == 200)
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        fake.state.withLock { state in
            state.voided = [
                .init(purchaseToken: "token-other", orderId: "GPA.0000-0000-0000-00001", purchaseTimeMillis: now - 86_400_000, voidedTimeMillis: now - 3_600_000),
                .init(purchaseToken: "token-old", orderId: "GPA.0000-0000-0000-00002", purchaseTimeMillis: now - 86_400_000, voidedTimeMillis: now - 3_000_000),
                .init(purchaseToken: "token-a", orderId: Play.firstOrder, purchaseTimeMillis: 1_582_200_000_000, voidedTimeMillis: now - 1_000_000),
            ]
        }
        // Voided within Google's window (the last 30 days): as of a later instant the order gave nothing.
        let later = "2030-01-01T00:00:00Z"
        #expect(Self.readable(harness, "ivy", at: later) == ["2020-02", "2020-03"])
        let report = try harness.service.pollGooglePlayVoidedPurchases()
        #expect(report.pages == 2)
        #expect(report.listed == 3)
        #expect(report.usersChanged == 1)
        #expect(Self.readable(harness, "ivy", at: later) == [])
        let targets = fake.seen(.voidedPurchases).map(\.target)
        #expect(targets.count == 2)
        #expect(targets.allSatisfy { $0.contains("type=1") && $0.contains("startTime=") && $0.contains("includeQuantityBasedPartialRefund=true") })
        #expect(targets.last?.contains("token=page-2") == true)
    }

    /// The revocation types of the refunds in `user`'s entitlements to The Monthly as of `at`.
    static func refundTypes(_ harness: ServiceHarness, _ user: String, at: String) -> [String?] {
        guard let publications = harness.call("GET", "/v1/users/\(user)/entitlements?at=\(at)").json?["publications"],
            let refunded = Array(publications.elements).first?["refunded"]
        else { return [] }
        return refunded.elements.map { $0["revocationType"]?.string }
    }

    /// An order Google refunds in part (`refundType` 2) and then in full, or in full and then in
    /// part, is refunded in full (R5.1) from the earlier void, whichever notification comes first
    /// (R18): before the earlier void it paid for everything, from it on for nothing.
    @Test(arguments: StoreBackend.tested, [true, false])
    func R18_R5_1_partialAndFullVoidsOfOneOrder_refundItInFull_inEitherOrder(backend: StoreBackend, partialFirst: Bool) throws {
        let (fake, harness) = try Play.start(backend: backend)
        defer { Play.stop(fake, harness) }
        fake.state.withLock { $0.set("token-a", Play.tokenA("SUBSCRIPTION_STATE_ACTIVE", expiry: "2040-01-01T00:00:00Z", acknowledged: true)) }
        #expect(Play.post(harness, user: "ivy", token: "token-a").status == 200)
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let (partialAt, fullAt) = (now - 7_200_000, now - 3_600_000)
        fake.state.withLock { state in
            state.voided = [
                .init(purchaseToken: "token-a", orderId: Play.firstOrder, purchaseTimeMillis: 1_582_200_000_000, voidedTimeMillis: partialAt, refundType: 2),
                .init(purchaseToken: "token-a", orderId: Play.firstOrder, purchaseTimeMillis: 1_582_200_000_000, voidedTimeMillis: fullAt, refundType: 1),
            ]
        }
        let later = "2041-01-01T00:00:00Z"
        #expect(Self.readable(harness, "ivy", at: later) == Self.issues)
        let partial = Play.voidedNotification(token: "token-a", orderId: Play.firstOrder, eventTime: partialAt, refundType: 2)
        let full = Play.voidedNotification(token: "token-a", orderId: Play.firstOrder, eventTime: fullAt, refundType: 1)
        let first = partialFirst ? (partial, "void-partial") : (full, "void-full")
        let second = partialFirst ? (full, "void-full") : (partial, "void-partial")
        #expect(try Play.notify(harness, fake, first.0, messageId: first.1).body == #"{"stored":true,"applied":true}"#)
        // A partial refund alone ends the order at the void (R5.3): every issue was published before it.
        #expect(Self.readable(harness, "ivy", at: later) == (partialFirst ? Self.issues : []))
        #expect(Self.refundTypes(harness, "ivy", at: later) == [partialFirst ? "REFUND_PRORATED" : "REFUND_FULL"])
        #expect(try Play.notify(harness, fake, second.0, messageId: second.1).body == #"{"stored":true,"applied":true}"#)
        #expect(Self.readable(harness, "ivy", at: later) == [])
        #expect(Self.refundTypes(harness, "ivy", at: later) == ["REFUND_FULL"])
        // From the earlier void on, not before it (R10).
        #expect(Self.readable(harness, "ivy", at: Instant(milliseconds: partialAt).description) == [])
        #expect(Self.readable(harness, "ivy", at: Instant(milliseconds: partialAt - 1).description) == Self.issues)
        // The poll lists both again: nothing changes.
        #expect(try harness.service.pollGooglePlayVoidedPurchases().usersChanged == 0)
        #expect(Self.readable(harness, "ivy", at: later) == [])
    }

    /// The poll reads partial refunds too: an order refunded only in part ends at the void
    /// (R5.3), and a full refund listed beside it makes it refunded in full (R5.1).
    @Test(arguments: StoreBackend.tested)
    func R18_R5_3_voidedPurchasesPoll_readsPartialRefunds(backend: StoreBackend) throws {
        let (fake, harness) = try Play.start(backend: backend)
        defer { Play.stop(fake, harness) }
        fake.state.withLock { $0.set("token-a", Play.tokenA("SUBSCRIPTION_STATE_ACTIVE", expiry: "2040-01-01T00:00:00Z", acknowledged: true)) }
        #expect(Play.post(harness, user: "ivy", token: "token-a").status == 200)
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let partial = FakeGooglePlay.VoidedPurchase(
            purchaseToken: "token-a", orderId: Play.firstOrder, purchaseTimeMillis: 1_582_200_000_000, voidedTimeMillis: now - 7_200_000, refundType: 2)
        fake.state.withLock { $0.voided = [partial] }
        let later = "2041-01-01T00:00:00Z"
        #expect(try harness.service.pollGooglePlayVoidedPurchases().usersChanged == 1)
        #expect(Self.refundTypes(harness, "ivy", at: later) == ["REFUND_PRORATED"])
        #expect(Self.readable(harness, "ivy", at: later) == Self.issues)
        fake.state.withLock { state in
            state.voided.append(
                .init(purchaseToken: "token-a", orderId: Play.firstOrder, purchaseTimeMillis: 1_582_200_000_000, voidedTimeMillis: now - 3_600_000, refundType: 1))
        }
        #expect(try harness.service.pollGooglePlayVoidedPurchases().usersChanged == 1)
        #expect(Self.refundTypes(harness, "ivy", at: later) == ["REFUND_FULL"])
        #expect(Self.readable(harness, "ivy", at: later) == [])
    }

    /// A purchase whose `obfuscatedExternalAccountId` names another user is 409 and stored for
    /// nobody; posted by that user it is theirs.
    @Test(arguments: StoreBackend.tested)
    func purchase_ofAnotherUsersAccountId_is409_andNothingIsStored(backend: StoreBackend) throws {
        let (fake, harness) = try Play.start(backend: backend)
        defer { Play.stop(fake, harness) }
        fake.state.withLock { $0.set("token-a", Play.tokenA("SUBSCRIPTION_STATE_ACTIVE", account: "ana")) }
        let answer = Play.post(harness, user: "ivy", token: "token-a")
        #expect(answer.status == 409, "\(answer.body)")
        #expect(answer.json?["error"]?["code"]?.string == "google_play_purchase_belongs_to_another_user")
        #expect(harness.call("GET", "/v1/users/ivy/entitlements").status == 404)
        #expect(fake.seen(.acknowledge).isEmpty)
        #expect(Play.post(harness, user: "ana", token: "token-a").status == 200)
        // Linked to ana now: ivy cannot take it by posting it again.
        fake.state.withLock { $0.set("token-a", Play.tokenA("SUBSCRIPTION_STATE_ACTIVE", acknowledged: true)) }
        #expect(Play.post(harness, user: "ivy", token: "token-a").status == 409)
        #expect(Self.readable(harness, "ana", at: "2020-03-01T12:00:00Z") == ["2020-02", "2020-03"])
    }

    /// A notification whose read names the app's user (`obfuscatedExternalAccountId`, R18) links
    /// the purchase to that user without a post from the app.
    @Test(arguments: StoreBackend.tested)
    func R18_notificationNamingAnAccountId_linksTheReaderWithoutAPost(backend: StoreBackend) throws {
        let (fake, harness) = try Play.start(backend: backend)
        defer { Play.stop(fake, harness) }
        fake.state.withLock { $0.set("token-a", Play.tokenA("SUBSCRIPTION_STATE_ACTIVE", acknowledged: true, account: "ivy")) }
        #expect(try Play.notify(harness, fake, Play.subscriptionNotification(4, token: "token-a"), messageId: "m1").body == #"{"stored":true,"applied":true}"#)
        #expect(Self.readable(harness, "ivy", at: "2020-03-10T12:00:00Z") == ["2020-02", "2020-03"])
    }

    /// A resubscription linked to another user's subscription: posted by a third user it is 409
    /// and nothing is stored, not even Google's read (the other user's history is unchanged);
    /// naming its own user (`obfuscatedExternalAccountId`), it is that user's, not the chain's.
    @Test(arguments: StoreBackend.tested)
    func purchase_linkedToAnotherUsersSubscription_is409_andNothingIsStored(backend: StoreBackend) throws {
        let (fake, harness) = try Play.start(backend: backend)
        defer { Play.stop(fake, harness) }
        fake.state.withLock { $0.set("token-a", Play.tokenA("SUBSCRIPTION_STATE_CANCELED", acknowledged: true, autoRenew: false)) }
        #expect(Play.post(harness, user: "ivy", token: "token-a").status == 200)
        harness.setNow("2020-06-17T12:00:01Z")
        fake.state.withLock { $0.set("token-b", Play.tokenB(acknowledged: true)) }
        let answer = Play.post(harness, user: "ana", token: "token-b")
        #expect(answer.status == 409, "\(answer.body)")
        #expect(answer.json?["error"]?["code"]?.string == "google_play_purchase_belongs_to_another_user")
        #expect(try harness.service.reader.withLock { reader in try reader.store.googlePlayPurchase(token: "token-b") } == nil)
        #expect(harness.call("GET", "/v1/users/ana/entitlements").status == 404)
        #expect(Self.readable(harness, "ivy", at: "2020-07-01T12:00:00Z") == ["2020-02", "2020-03"])
        // Named for ana by the app: ana's through the notification, and still not ivy's.
        var named = Play.tokenB(acknowledged: true)
        named.obfuscatedExternalAccountId = "ana"
        fake.state.withLock { $0.set("token-b", named) }
        #expect(try Play.notify(harness, fake, Play.subscriptionNotification(4, token: "token-b"), messageId: "m1").body == #"{"stored":true,"applied":true}"#)
        #expect(Self.readable(harness, "ana", at: "2020-07-01T12:00:00Z") == ["2020-06", "2020-07"])
        #expect(Self.readable(harness, "ivy", at: "2020-07-01T12:00:00Z") == ["2020-02", "2020-03"])
        #expect(Play.post(harness, user: "ivy", token: "token-b").status == 409)
    }

    /// Of two reads of a token, the one asked of Google later is kept, whichever is stored last:
    /// an older answer committed after a newer one changes no state nor expiry.
    @Test(arguments: StoreBackend.tested)
    func olderRead_storedAfterANewerOne_changesNothing(backend: StoreBackend) throws {
        let (fake, harness) = try Play.start(backend: backend)
        defer { Play.stop(fake, harness) }
        let google = try #require(harness.service.googlePlay)
        fake.state.withLock { $0.set("token-a", Play.tokenA("SUBSCRIPTION_STATE_ACTIVE", acknowledged: true)) }
        #expect(Play.post(harness, user: "ivy", token: "token-a").status == 200)
        // Renewed on Mar 20 (asked at 09:00:00), then revoked (asked at 09:00:05).
        harness.setNow("2020-03-25T09:00:00Z")
        fake.state.withLock {
            $0.set("token-a", Play.tokenA("SUBSCRIPTION_STATE_ACTIVE", latestOrderId: Play.firstOrder + "..0", expiry: "2020-04-20T12:00:00Z", acknowledged: true))
        }
        let older = try harness.service.readGooglePlayPurchase(google, token: "token-a", oneTimeProductId: nil)
        harness.setNow("2020-03-25T09:00:05Z")
        fake.state.withLock {
            $0.set("token-a", Play.tokenA("SUBSCRIPTION_STATE_EXPIRED", latestOrderId: Play.firstOrder + "..0", expiry: "2020-03-25T09:00:00Z", acknowledged: true))
        }
        let newer = try harness.service.readGooglePlayPurchase(google, token: "token-a", oneTimeProductId: nil)
        _ = try harness.service.storeGooglePlayRead(newer, packageName: Play.package, messageId: nil, linkTo: nil)
        harness.setNow("2020-03-25T09:00:10Z")
        _ = try harness.service.storeGooglePlayRead(older, packageName: Play.package, messageId: nil, linkTo: nil)
        let stored = try harness.service.reader.withLock { reader in try reader.store.googlePlayPurchase(token: "token-a") }
        #expect(stored?.state == .expired)
        #expect(stored?.lastRead == DateText.rfc3339("2020-03-25T09:00:05Z"))
        let orders = try harness.service.reader.withLock { reader in try reader.store.googlePlayOrders(token: "token-a") }
        #expect(orders.map(\.expiry) == [DateText.rfc3339("2020-03-20T12:00:00Z"), DateText.rfc3339("2020-03-25T09:00:00Z")])
    }

    /// Google refusing the service account (401) is a configuration error, for the app (502) and
    /// for a notification (502: Pub/Sub delivers it again); nothing stored. The answers do not
    /// name the account; the log does.
    @Test func google401_isAConfigurationError_namingTheAccountInTheLogOnly() throws {
        let (fake, harness) = try Play.start()
        defer { Play.stop(fake, harness) }
        let lines = Mutex<[String]>([])
        harness.service.googlePlay?.log.send { line in lines.withLock { $0.append(line) } }
        fake.state.withLock { state in
            state.set("token-a", Play.tokenA("SUBSCRIPTION_STATE_ACTIVE"))
            // Two per call: a 401 is asked once more with a fresh access token.
            state.failures = Array(repeating: .init(status: 401, endpoint: .subscription), count: 4)
        }
        let posted = Play.post(harness, user: "ivy", token: "token-a")
        #expect(posted.status == 502, "\(posted.body)")
        #expect(posted.json?["error"]?["code"]?.string == "google_play_not_authorized")
        #expect(!posted.body.contains(FakeGooglePlay.serviceAccountEmail))
        #expect(posted.body.contains("Google refused the service account's credentials (HTTP 401)"), "\(posted.body)")
        #expect(!posted.body.contains("ya29."))
        let notified = try Play.notify(harness, fake, Play.subscriptionNotification(4, token: "token-a"), messageId: "m1")
        #expect(notified.status == 502, "\(notified.body)")
        #expect(!notified.body.contains(FakeGooglePlay.serviceAccountEmail))
        // The service's log names the account.
        #expect(lines.withLock { $0 }.contains { $0.contains(FakeGooglePlay.serviceAccountEmail) })
        #expect(harness.call("GET", "/v1/users/ivy/entitlements").status == 404)
        // Mended: the same message is applied when Pub/Sub delivers it again.
        #expect(try Play.notify(harness, fake, Play.subscriptionNotification(4, token: "token-a"), messageId: "m1").body == #"{"stored":true,"applied":true}"#)
    }

    /// Google answering 503 on every try: the notification is 503 with nothing stored (Pub/Sub
    /// delivers it again), the app's post 503; a test notification is 200 and asks nothing.
    @Test func googleUnavailable_is503_andNothingIsStored() throws {
        let (fake, harness) = try Play.start()
        defer { Play.stop(fake, harness) }
        fake.state.withLock { state in
            state.set("token-a", Play.tokenA("SUBSCRIPTION_STATE_ACTIVE"))
            state.failures = Array(repeating: .init(status: 503, endpoint: .subscription), count: 4)
        }
        let notified = try Play.notify(harness, fake, Play.subscriptionNotification(4, token: "token-a"), messageId: "m1")
        #expect(notified.status == 503, "\(notified.body)")
        #expect(notified.json?["error"]?["code"]?.string == "google_play_unavailable")
        #expect(Play.post(harness, user: "ivy", token: "token-a").status == 503)
        #expect(try Play.notify(harness, fake, Play.subscriptionNotification(4, token: "token-a"), messageId: "m1").body == #"{"stored":true,"applied":true}"#)
        let test = #"{"version": "1.0", "packageName": "\#(Play.package)", "eventTimeMillis": "1582200001000", "testNotification": {"version": "1.0"}}"#
        let seen = fake.seen.count
        #expect(try Play.notify(harness, fake, test, messageId: "t1").body == #"{"stored":false,"applied":false,"test":true}"#)
        #expect(fake.seen.count == seen)
    }

    /// The app's bad bodies: 422 naming what is wrong, Google not asked.
    @Test func purchase_badBodies_are422() throws {
        let (fake, harness) = try Play.start()
        defer { Play.stop(fake, harness) }
        let cases: [(String, String)] = [
            (#"{"purchaseToken": "t"}"#, "invalid_google_play_purchase"),
            (#"{"packageName": "\#(Play.package)", "purchaseToken": ""}"#, "invalid_google_play_purchase"),
            (#"{"packageName": "\#(Play.package)", "purchaseToken": "t", "userId": "x"}"#, "invalid_google_play_purchase"),
            (#"{"packageName": "com.other.app", "purchaseToken": "t"}"#, "google_play_wrong_package"),
            (#"{"packageName": "\#(Play.package)", "purchaseToken": "t", "productId": "no_such_product"}"#, "unknown_google_play_product"),
            // Not Google's token alphabet, or too long; a control character.
            (#"{"packageName": "\#(Play.package)", "purchaseToken": "t\u0000u"}"#, "invalid_google_play_purchase"),
            (#"{"packageName": "\#(Play.package)", "purchaseToken": "t\nu"}"#, "invalid_google_play_purchase"),
            (#"{"packageName": "\#(Play.package)", "purchaseToken": "a/../b"}"#, "invalid_google_play_purchase"),
            (#"{"packageName": "\#(Play.package)", "purchaseToken": "tök"}"#, "invalid_google_play_purchase"),
            (#"{"packageName": "\#(Play.package)", "purchaseToken": "\#(String(repeating: "a", count: 513))"}"#, "invalid_google_play_purchase"),
            (#"{"packageName": "com.example.magazine\u0001", "purchaseToken": "t"}"#, "invalid_google_play_purchase"),
        ]
        for (body, code) in cases {
            let answer = harness.call("POST", "/v1/users/ivy/google-play/purchases", json: body)
            #expect(answer.status == 422, "\(body): \(answer.body)")
            #expect(answer.json?["error"]?["code"]?.string == code, "\(body): \(answer.body)")
            if code == "invalid_google_play_purchase" { #expect(answer.json?["error"]?["message"]?.string?.hasPrefix("$.") == true, "\(body): \(answer.body)") }
        }
        #expect(Play.post(harness, user: "ivy", token: "never-sold").json?["error"]?["code"]?.string == "unknown_google_play_purchase")
        #expect(fake.seen(.subscription).count == 1)
        // Google refusing the token as malformed (400) is the app's error, not Google failing.
        fake.state.withLock { $0.failures = [.init(status: 400, endpoint: .subscription)] }
        let refused = Play.post(harness, user: "ivy", token: "malformed-token")
        #expect(refused.status == 422, "\(refused.body)")
        #expect(refused.json?["error"]?["message"]?.string?.hasPrefix("$.purchaseToken") == true, "\(refused.body)")
    }
}
