import Dispatch
import Masthead
import MastheadFormats
import MastheadGooglePlay
import MastheadStorage
import Synchronization

/// Google Play purchases (R18): read from the Play Developer API, stored through the group commit
/// as every write (so the caches, the change log and webhook events see them), acknowledged.
/// Every call here asks Google or waits for a commit: run it on a Google thread
/// (``GooglePlayConnection/run(_:)``), a command's thread or the acknowledgement thread, never
/// on an event loop or the writer's thread.
extension EntitlementService {
    /// One read of a purchase token, decoded.
    struct GooglePlayRead: Sendable {
        var token: String
        var kind: GooglePlayPurchaseKind
        /// When Google was asked: what the answer says held then, and of two reads the one asked
        /// later is the newer, whichever is stored first.
        var readAt: Instant
        /// The JSON body as Google sent it.
        var body: [UInt8]
        /// The Play product id: a subscription's first line item's, or the one-time product's.
        var playProductId: String
        var subscription: SubscriptionPurchaseV2?
        var product: GooglePlayProductPurchase?

        /// The app's id for the user, set at purchase; nil without one.
        var obfuscatedExternalAccountId: String? { subscription?.obfuscatedExternalAccountId ?? product?.obfuscatedExternalAccountId }

        /// The Play ids (`productId` or `productId/basePlanId`) the catalog does not map.
        func unknownProductIds(in catalog: Catalog) -> [String] {
            if let subscription {
                return subscription.lineItems.filter { catalog.product(googlePlayProductId: $0.productId, basePlanId: $0.basePlanId) == nil }
                    .map { $0.productId + ($0.basePlanId.map { "/" + $0 } ?? "") }
            }
            return catalog.product(googlePlayProductId: playProductId, basePlanId: nil) == nil ? [playProductId] : []
        }
    }

    /// What storing a read came to.
    enum GooglePlayStored: Sendable {
        /// Committed: the observation stored, whether an acknowledgement is owed, how the user link went (nil: none asked).
        case stored(GooglePlayObservation, owesAcknowledgement: Bool, link: GooglePlayLink?)
        /// The Pub/Sub message was applied before: nothing stored.
        case duplicate
    }

    /// Reads `token` from Google: `purchases.products.get` for the one-time product
    /// `oneTimeProductId`, else `purchases.subscriptionsv2.get`.
    /// - Throws: the service's error for Google's failure or an answer that cannot be read.
    func readGooglePlayPurchase(_ google: GooglePlayConnection, token: String, oneTimeProductId: String?) throws(GooglePlayServiceError) -> GooglePlayRead {
        let readAt = clock()
        do {
            if let productId = oneTimeProductId {
                let body = try google.client.product(packageName: google.packageName, productId: productId, token: token)
                let product: GooglePlayProductPurchase
                do { product = try GooglePlayProductPurchase.decode(body) } catch { throw GooglePlayServiceError.badAnswer("Google's ProductPurchase: \(error)") }
                return GooglePlayRead(token: token, kind: .product, readAt: readAt, body: body, playProductId: productId, product: product)
            }
            let body = try google.client.subscription(packageName: google.packageName, token: token)
            let subscription: SubscriptionPurchaseV2
            do { subscription = try SubscriptionPurchaseV2.decode(body) } catch { throw GooglePlayServiceError.badAnswer("Google's SubscriptionPurchaseV2: \(error)") }
            return GooglePlayRead(
                token: token, kind: .subscription, readAt: readAt, body: body, playProductId: subscription.lineItems.first?.productId ?? "", subscription: subscription)
        } catch let error as GooglePlayError {
            throw google.failure(error)
        } catch let error as GooglePlayServiceError {
            throw error
        } catch {
            throw .badAnswer("\(error)")
        }
    }

    /// Stores `read` in one commit: the Pub/Sub `messageId` first when given (a message applied
    /// before stores nothing), the observation mapped onto the catalog with the token's earlier
    /// orders and state as of the read's ``GooglePlayRead/readAt``, and the link of the token's
    /// chain to `userId` when given. Waits for the commit.
    /// - Throws: ``GooglePlayServiceError/belongsToAnotherUser`` when the link to `userId` is a
    ///   conflict: the whole commit is rolled back, nothing stored; or the store's error.
    func storeGooglePlayRead(_ read: GooglePlayRead, packageName: String, messageId: String?, linkTo userId: String?) throws -> GooglePlayStored {
        let now = clock()
        let readAt = read.readAt
        let catalog = catalogAsMerged
        return try writeAndWait { store in
            // The lock first, as every Google Play write: the purchase is read as no one else is writing it.
            try store.lockGooglePlayPurchases()
            if let messageId, try !store.recordGooglePlayMessage(messageId, now: now) { return (.duplicate, []) }
            let previous = try store.googlePlayPurchase(token: read.token)
            let previousOrders = try store.googlePlayOrders(token: read.token)
            let observation =
                if let subscription = read.subscription {
                    GooglePlayObservation(
                        subscription: subscription, purchaseToken: read.token, catalog: catalog, readAt: readAt, previousOrders: previousOrders,
                        previousState: previous?.state)
                } else {
                    GooglePlayObservation(
                        product: read.product!, purchaseToken: read.token, playProductId: read.playProductId, catalog: catalog, readAt: readAt,
                        previousOrders: previousOrders)
                }
            var users = try store.storeGooglePlayObservation(observation, packageName: packageName, kind: read.kind, body: read.body, now: readAt)
            var link: GooglePlayLink?
            if let userId {
                link = try store.linkGooglePlayPurchase(token: read.token, to: userId)
                // Thrown out of the write: its savepoint is rolled back, the read is not stored.
                if case .conflict = link { throw GooglePlayServiceError.belongsToAnotherUser }
                if link == .linked { users.append(userId) }
            }
            let owed = try store.googlePlayPurchase(token: read.token)?.nextAcknowledgement != nil
            return (.stored(observation, owesAcknowledgement: owed, link: link), users.map { Change.user($0) })
        }
    }

    /// Records a Pub/Sub message applied with nothing to store (a token Google does not know);
    /// answers whether it was new.
    func recordGooglePlayMessage(_ messageId: String) throws -> Bool {
        let now = clock()
        return try writeAndWait { store in (try store.recordGooglePlayMessage(messageId, now: now), []) }
    }

    /// Records that Google voided `orderId` of `token` at `at` (`prorated`: R5.3, else R5.1), with
    /// the Pub/Sub `messageId` when given; answers false for a message applied before (nothing stored).
    func voidGooglePlayOrder(token: String, orderId: String, at: Instant, prorated: Bool, messageId: String?) throws -> Bool {
        let now = clock()
        return try writeAndWait { store in
            if let messageId, try !store.recordGooglePlayMessage(messageId, now: now) { return (false, []) }
            let users = try store.voidGooglePlayOrder(token: token, orderId: orderId, at: at, prorated: prorated, now: now)
            return (true, users.map { Change.user($0) })
        }
    }

    /// Acknowledges a claimed purchase at Google and answers the outcome: done; given up when
    /// Google refuses it for good (HTTP 400, 404, 410); else failed and due again later. Google is
    /// always asked, however long ago the purchase was first read: its three days run from when
    /// the purchase completed (a pending one can complete days after its first read), which only
    /// Google knows, so only Google's refusal gives an acknowledgement up.
    func acknowledgeGooglePlayPurchase(_ google: GooglePlayConnection, _ purchase: StoredGooglePlayPurchase) -> GooglePlayAcknowledgement {
        do throws(GooglePlayError) {
            let (packageName, productId, token) = (google.packageName, purchase.playProductId, purchase.purchaseToken)
            switch purchase.kind {
            case .subscription: try google.client.acknowledgeSubscription(packageName: packageName, productId: productId, token: token)
            case .product: try google.client.acknowledgeProduct(packageName: packageName, productId: productId, token: token)
            }
            return .acknowledged
        } catch .purchaseNotFound(let endpoint, let status) {
            return .givenUp(reason: GooglePlayError.purchaseNotFound(endpoint: endpoint, status: status).description)
        } catch .refused(let endpoint, 400, let detail) {
            return .givenUp(reason: GooglePlayError.refused(endpoint: endpoint, status: 400, detail: detail).description)
        } catch {
            return .failed(reason: error.description)
        }
    }

    /// What one pass of acknowledgements did.
    public struct GooglePlayAcknowledgementReport: Sendable, Hashable {
        public var acknowledged = 0
        /// Failed, tried again later.
        public var failed = 0
        /// Given up: Google refused them for good (HTTP 400, 404, 410).
        public var givenUp = 0

        /// Creates a report.
        public init(acknowledged: Int = 0, failed: Int = 0, givenUp: Int = 0) {
            self.acknowledged = acknowledged
            self.failed = failed
            self.givenUp = givenUp
        }
    }

    /// Most acknowledgements one pass tries: the rest wait for the next pass.
    static let acknowledgementsPerPass = 100

    /// Tries the acknowledgements due now, one claim at a time (each claimed for
    /// ``GooglePlayAcknowledgement/leaseMilliseconds``, so that no other instance on the database
    /// tries it meanwhile), at most ``acknowledgementsPerPass``, while `continuing` says to go on;
    /// nothing when Google Play is off. `log` gets a line for each acknowledgement given up.
    /// - Throws: when the database cannot be read or written.
    @discardableResult
    public func acknowledgeDueGooglePlayPurchases(
        while continuing: () -> Bool = { true }, log: (String) -> Void = { _ in }
    ) throws -> GooglePlayAcknowledgementReport {
        var report = GooglePlayAcknowledgementReport()
        guard let google = googlePlay else { return report }
        for _ in 0..<Self.acknowledgementsPerPass where continuing() {
            let now = clock()
            let lease = now.adding(milliseconds: GooglePlayAcknowledgement.leaseMilliseconds)
            guard let purchase = try answerWrite({ store in try store.claimGooglePlayAcknowledgement(now: now, leaseUntil: lease) }) else { break }
            let outcome = acknowledgeGooglePlayPurchase(google, purchase)
            let recorded = clock()
            try answerWrite { store in try store.recordGooglePlayAcknowledgement(token: purchase.purchaseToken, outcome: outcome, now: recorded) }
            switch outcome {
            case .acknowledged: report.acknowledged += 1
            case .failed: report.failed += 1
            case .givenUp(let reason):
                report.givenUp += 1
                log("google play: acknowledgement of a purchase of \(purchase.playProductId) given up: \(reason)\n")
            }
        }
        return report
    }

    /// Starts the thread that tries the acknowledgements due every
    /// `googlePlayAcknowledgementIntervalSeconds`, and at once when a stored read owes one
    /// (``GooglePlayConnection/acknowledgements``' `wake()`), and fetches Google's push signing
    /// keys again when they are due; ``close()`` stops it. Nothing when Google Play is off.
    public func startAcknowledgingGooglePlayPurchases(log: @escaping @Sendable (String) -> Void) {
        guard let google = googlePlay else { return }
        google.acknowledgements.start(intervalSeconds: configuration.googlePlayAcknowledgementIntervalSeconds) { [self] in
            google.refreshSigningKeys()
            do {
                let report = try acknowledgeDueGooglePlayPurchases(while: { !google.acknowledgements.isStopping }, log: log)
                if report.failed > 0 { log("google play: \(report.acknowledged) acknowledged, \(report.failed) failed (tried again later)\n") }
            } catch {
                log("google play: acknowledgements not tried: \(error)\n")
            }
        }
    }

    /// Google Play purchases still owed an acknowledgement a day after they were first read (the
    /// `masthead_google_play_unacknowledged_24h` gauge); nil when Google Play is off or the store cannot be read.
    var googlePlayUnacknowledgedForADay: Int? {
        guard googlePlay != nil else { return nil }
        let dayAgo = Instant(milliseconds: clock().milliseconds - 86_400_000)
        return try? reader.withLock { reader in try reader.store.googlePlayUnacknowledgedCount(olderThan: dayAgo) }
    }

    /// The `/metrics` lines of Google Play: the purchases owed an acknowledgement for a day.
    static func googlePlayMetricsLines(_ unacknowledged: Int) -> [String] {
        [
            "# HELP masthead_google_play_unacknowledged_24h Google Play purchases still owed an acknowledgement a day after they were first read.",
            "# TYPE masthead_google_play_unacknowledged_24h gauge", "masthead_google_play_unacknowledged_24h \(unacknowledged)",
        ]
    }

    /// Commits `work` through the writer and waits: its caches dropped for what it changed, its
    /// outcome noted for `/health`, as every write.
    func writeAndWait<Value: Sendable>(_ work: @escaping @Sendable (any EntitlementStore) throws -> (value: Value, changes: [Change])) throws -> Value {
        let result = Mutex<Result<Value, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        write(work) { outcome in
            result.withLock { $0 = outcome }
            done.signal()
        }
        done.wait()
        return try result.withLock { $0! }.get()
    }
}
