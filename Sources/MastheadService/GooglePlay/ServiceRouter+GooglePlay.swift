import Masthead
import MastheadFormats
import MastheadGooglePlay
import MastheadHTTP
import MastheadJSON
import MastheadStorage

/// Google Play (R18): `POST /v1/notifications/google-play`, the real-time developer notifications
/// Cloud Pub/Sub pushes, and `POST /v1/users/{userId}/google-play/purchases`, a purchase the app
/// posts. Both ask Google on a Google thread (``GooglePlayConnection/run(_:)``), never on the event loop.
extension ServiceRouter {
    /// The Google Play routes, in the OpenAPI document's order.
    static let googlePlayRoutes: [Route] = [
        Route(
            ["POST"], "/v1/notifications/google-play", .open, label: "google_play_notifications",
            .deferred { router, request, _, reply in router.postGooglePlayNotification(request, reply: reply) }),
        Route(
            ["POST"], "/v1/users/{userId}/google-play/purchases", .apiToken, label: "google_play_purchases",
            .deferred { router, request, ids, reply in router.postGooglePlayPurchase(request, userId: ids[.user], reply: reply) }),
    ]

    /// How long after a voided purchase notification's `eventTime` a void Google does not list
    /// yet is answered 503 (Pub/Sub delivers the message again) rather than recorded as not applied.
    static let voidListingDelayMilliseconds: Int64 = 3_600_000

    /// Most bytes of a package name or a Play product id posted by the app.
    static let maxGooglePlayIdBytes = 1024

    /// Whether `text` is a purchase token as Google writes them (and its client sends them): 1 to
    /// `GooglePlayClient.maxPurchaseTokenBytes` (512) ASCII letters, digits, `.`, `-` and `_`.
    static func isGooglePlayToken(_ text: String) -> Bool {
        (1...GooglePlayClient.maxPurchaseTokenBytes).contains(text.utf8.count)
            && text.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                    UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "_"):
                    true
                default: false
                }
            }
    }

    /// A Pub/Sub push: its OIDC token judged first, on the event loop (401, nothing read or
    /// stored; 503 while Google's keys are first being fetched), so that only a verified push
    /// takes a Google thread; then the push and its developer notification decoded (400), its
    /// package checked (422); then a test notification is answered 200, a subscription or
    /// one-time product notification's token is read from Google and stored with the message id,
    /// a voided purchase confirmed with Google and recorded; each answered 200 once committed, a
    /// message applied before 200 as a duplicate. Google failing is a 5xx and nothing is stored,
    /// so Pub/Sub delivers the message again.
    func postGooglePlayNotification(_ request: HTTPRequest, reply: @escaping @Sendable (HTTPResponse) -> Void) {
        guard let google = service.googlePlay else { return reply(GooglePlayServiceError.notConfigured.response) }
        let authorization = request.header("Authorization")
        let admission: GooglePlayConnection.PushAdmission
        do throws(GooglePlayServiceError) { admission = try google.admitPush(authorization: authorization) } catch { return reply(error.response) }
        let body = request.body
        let refusal = google.run { [self] in
            do throws(GooglePlayServiceError) {
                if case .fetchKeys = admission { try google.fetchKeysAndVerify(authorization: authorization) }
                let push: PubSubPush
                do { push = try PubSubPush.decode(body) } catch { throw .invalidNotification("\(error)") }
                let notification: DeveloperNotification
                do { notification = try DeveloperNotification.decode(push.data) } catch { throw .invalidNotification("$.message.data: \(error)") }
                guard notification.packageName.utf8.elementsEqual(google.packageName.utf8) else { throw .wrongPackage(notification.packageName) }
                reply(try applyGooglePlay(notification, messageId: push.messageId, google))
            } catch {
                reply(error.response)
            }
        }
        guard let refusal else { return }
        if case .fetchKeys = admission { google.abandonKeyFetch() }
        reply(refusal.response)
    }

    /// Applies a verified notification; answers once it is committed.
    private func applyGooglePlay(_ notification: DeveloperNotification, messageId: String, _ google: GooglePlayConnection) throws(GooglePlayServiceError) -> HTTPResponse {
        let token: String
        let oneTimeProductId: String?
        switch notification.kind {
        case .test:
            return Self.googlePlayAnswer(stored: false, applied: false, extra: ("test", true))
        case .voidedPurchase(let voidedToken, let orderId, _, let refundType):
            // Applied only as Google's Voided Purchases API lists it, at its instant: a body that
            // is not a void Google made revokes nothing.
            let prorated = refundType == 2
            guard
                let voided = try service.confirmedGooglePlayVoid(
                    google, token: voidedToken, orderId: orderId, eventTime: notification.eventTime, partialRefund: prorated)
            else {
                // Google may list a void a little after it notifies it: a recent one is asked for
                // again when Pub/Sub delivers the message again.
                if GooglePlayConnection.systemNow().milliseconds - notification.eventTime.milliseconds < Self.voidListingDelayMilliseconds {
                    throw .unavailable("Google Play's Voided Purchases API does not list this void yet")
                }
                google.log.note("voided purchase notification \(messageId) of order \(orderId) not applied: the Voided Purchases API does not list it")
                do {
                    guard try service.recordGooglePlayMessage(messageId) else { return Self.googlePlayAnswer(stored: false, applied: false, extra: ("duplicate", true)) }
                } catch {
                    return ServiceError.notStored("notification", error).response
                }
                return Self.googlePlayAnswer(stored: true, applied: false, error: "Google Play's Voided Purchases API does not list this void")
            }
            let applied: Bool
            do {
                applied = try service.voidGooglePlayOrder(token: voidedToken, orderId: orderId, at: voided.voidedTime, prorated: voided.isPartial, messageId: messageId)
            } catch {
                return ServiceError.notStored("voided purchase", error).response
            }
            return applied ? Self.googlePlayAnswer(stored: true, applied: true) : Self.googlePlayAnswer(stored: false, applied: false, extra: ("duplicate", true))
        case .subscription(_, let subscriptionToken, _):
            (token, oneTimeProductId) = (subscriptionToken, nil)
        case .oneTimeProduct(_, let productToken, let sku):
            (token, oneTimeProductId) = (productToken, sku)
        }
        let read: EntitlementService.GooglePlayRead
        do {
            read = try service.readGooglePlayPurchase(google, token: token, oneTimeProductId: oneTimeProductId)
        } catch .unknownPurchase, .malformedPurchase {
            // Google does not know the token: delivering the message again would not help.
            do {
                let new = try service.recordGooglePlayMessage(messageId)
                guard new else { return Self.googlePlayAnswer(stored: false, applied: false, extra: ("duplicate", true)) }
            } catch {
                return ServiceError.notStored("notification", error).response
            }
            return Self.googlePlayAnswer(stored: true, applied: false, error: "Google Play knows no such purchase token")
        }
        let stored: EntitlementService.GooglePlayStored
        do { stored = try service.storeGooglePlayRead(read, packageName: google.packageName, messageId: messageId, linkTo: nil) } catch {
            return ServiceError.notStored("notification", error).response
        }
        guard case .stored(_, let owed, _) = stored else { return Self.googlePlayAnswer(stored: false, applied: false, extra: ("duplicate", true)) }
        // Answered now: the acknowledgement thread asks Google.
        if owed { google.acknowledgements.wake() }
        return Self.googlePlayAnswer(stored: true, applied: true)
    }

    /// `{"stored": …, "applied": …}` with an error or one more flag.
    static func googlePlayAnswer(stored: Bool, applied: Bool, error: String? = nil, extra: (String, Bool)? = nil) -> HTTPResponse {
        var writer = JSONWriter(capacity: 128)
        writer.beginObject()
        writer.field("stored", stored)
        writer.field("applied", applied)
        if let error { writer.field("error", error) }
        if let extra { writer.field(extra.0, extra.1) }
        writer.endObject()
        return .json(200, writer.bytes)
    }

    /// A purchase from the app: `{"packageName", "purchaseToken"[, "productId"]}` (`productId`
    /// for a one-time product). The token is read from Google, stored, linked to the user with
    /// the subscription it continues, acknowledged when owed, and answered with the user's
    /// entitlements as a receipt post is. 409 when the purchase's `obfuscatedExternalAccountId`
    /// or its subscription's link names another user (nothing stored, the read included); 422 for a body that is not one, another
    /// package, a token Google does not know or Play products the catalog does not map (nothing
    /// stored); 502 or 503 when Google fails.
    func postGooglePlayPurchase(_ request: HTTPRequest, userId: String, reply: @escaping @Sendable (HTTPResponse) -> Void) {
        guard let google = service.googlePlay else { return reply(GooglePlayServiceError.notConfigured.response) }
        let posted: (token: String, productId: String?)
        do throws(AnyServiceFailure) { posted = try googlePlayPurchaseBody(request.body, google: google) } catch { return reply(error.failure.response) }
        let refusal = google.run { [self] in
            do throws(GooglePlayServiceError) {
                let read = try service.readGooglePlayPurchase(google, token: posted.token, oneTimeProductId: posted.productId)
                if let account = read.obfuscatedExternalAccountId, !account.utf8.elementsEqual(userId.utf8) { throw .belongsToAnotherUser }
                let unknown = read.unknownProductIds(in: service.catalog)
                if !unknown.isEmpty { throw .unknownProduct(unknown) }
                let stored: EntitlementService.GooglePlayStored
                do {
                    stored = try service.storeGooglePlayRead(read, packageName: google.packageName, messageId: nil, linkTo: userId)
                } catch GooglePlayServiceError.belongsToAnotherUser {
                    throw .belongsToAnotherUser
                } catch {
                    return reply(ServiceError.notStored("Google Play purchase", error).response)
                }
                guard case .stored(let observation, let owed, _) = stored else { return reply(ServiceError.notStored("Google Play purchase", StorageError.closed).response) }
                // Answered first: the acknowledgement thread asks Google.
                defer { if owed { google.acknowledgements.wake() } }
                let environment: Environment = observation.orders.contains { $0.environment == .sandbox } ? .sandbox : .production
                let answer = purchasesAnswer(userId: userId, environment: environment, what: "Google Play purchase", reply: reply)
                do {
                    answer(.stored(try service.history(forUser: userId) ?? PurchaseHistory()))
                } catch {
                    answer(.storedUnread(error))
                }
            } catch {
                reply(error.response)
            }
        }
        if let refusal { reply(refusal.response) }
    }

    /// The body of a purchase: `packageName` (the configured one), `purchaseToken` (Google's
    /// alphabet: ``isGooglePlayToken(_:)``), and `productId` for a one-time product the catalog
    /// maps; no other member, no control character.
    private func googlePlayPurchaseBody(_ body: [UInt8], google: GooglePlayConnection) throws(AnyServiceFailure) -> (token: String, productId: String?) {
        let invalid = { (reason: String) in GooglePlayServiceError.invalidPurchase(reason) }
        let root = try Self.object(body, members: ["packageName", "purchaseToken", "productId"], invalid)
        func text(_ name: String, required: Bool) throws(AnyServiceFailure) -> String? {
            guard let value = root[name] else {
                if required { throw AnyServiceFailure(invalid("$.\(name) is missing")) }
                return nil
            }
            guard let text = value.string, !text.isEmpty, text.utf8.count <= Self.maxGooglePlayIdBytes else {
                throw AnyServiceFailure(invalid("$.\(name) must be a string of 1 to \(Self.maxGooglePlayIdBytes) bytes"))
            }
            guard !text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else { throw AnyServiceFailure(invalid("$.\(name) holds a control character")) }
            return text
        }
        let packageName = try text("packageName", required: true)!
        let token = try text("purchaseToken", required: true)!
        guard Self.isGooglePlayToken(token) else {
            throw AnyServiceFailure(invalid("$.purchaseToken must be 1 to \(GooglePlayClient.maxPurchaseTokenBytes) ASCII letters, digits, \".\", \"-\" or \"_\""))
        }
        let productId = try text("productId", required: false)
        guard packageName.utf8.elementsEqual(google.packageName.utf8) else { throw AnyServiceFailure(GooglePlayServiceError.wrongPackage(packageName)) }
        if let productId, service.catalog.product(googlePlayProductId: productId, basePlanId: nil) == nil {
            throw AnyServiceFailure(GooglePlayServiceError.unknownProduct([productId]))
        }
        return (token, productId)
    }
}
