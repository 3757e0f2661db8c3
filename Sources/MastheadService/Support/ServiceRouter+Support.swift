import Masthead
import MastheadHTTP
import MastheadJSON
import MastheadStorage

/// The routes of support tools, with the admin token: `GET /v1/lookup?q=` (the users a text
/// names) and `GET /v1/users/{userId}/evidence` (everything stored about a user).
extension ServiceRouter {
    /// The support routes, in the OpenAPI document's order.
    static let supportRoutes: [Route] = [
        Route(
            ["GET"], "/v1/lookup", .adminToken, label: "lookup",
            .immediate { router, request, _ throws(AnyServiceFailure) in try router.lookup(request) }),
        Route(
            ["GET"], "/v1/users/{userId}/evidence", .adminToken, label: "evidence",
            .immediate { router, _, ids throws(AnyServiceFailure) in try router.evidence(userId: ids[.user]) }),
    ]

    /// The longest lookup text accepted, in UTF-8 bytes.
    static let maxLookupBytes = 1024

    /// `GET /v1/lookup?q=`: `{"query", "matches": [{"userId", "matchedBy", "environment"}]}`,
    /// every user `q` names exactly, sorted by user id then `matchedBy`.
    func lookup(_ request: HTTPRequest) throws(AnyServiceFailure) -> HTTPResponse {
        let text = try ServiceRouter.lookupText(request.queryValue("q"))
        let matches: [LookupMatch]
        do { matches = try service.lookup(text) } catch { throw AnyServiceFailure(ServiceError.storeUnavailable(error)) }
        var writer = JSONWriter(capacity: 64 + text.utf8.count + 128 * matches.count)
        writer.beginObject()
        writer.field("query", text)
        writer.key("matches")
        writer.beginArray()
        for match in matches {
            writer.beginObject()
            writer.field("userId", match.userId)
            writer.field("matchedBy", match.kind.rawValue)
            writer.field("environment", match.environment?.rawValue)
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return .json(200, writer.bytes)
    }

    /// The lookup text `q`: present, 1 to ``maxLookupBytes`` bytes, no control character (C0 or
    /// DEL, which no id holds); else `invalid_lookup` saying which.
    static func lookupText(_ q: String?) throws(AnyServiceFailure) -> String {
        guard let q else { throw AnyServiceFailure(SupportError.invalidLookup("is missing")) }
        if q.isEmpty { throw AnyServiceFailure(SupportError.invalidLookup("is empty")) }
        let count = q.utf8.count
        if count > maxLookupBytes { throw AnyServiceFailure(SupportError.invalidLookup("is longer than \(maxLookupBytes) bytes (\(count))")) }
        if let offset = q.utf8.firstIndex(where: { $0 < 0x20 || $0 == 0x7F }).map({ q.utf8.distance(from: q.utf8.startIndex, to: $0) }) {
            throw AnyServiceFailure(SupportError.invalidLookup("contains a control character at byte \(offset)"))
        }
        return q
    }

    /// `GET /v1/users/{userId}/evidence`: the user's linked subscriptions, their transactions and
    /// renewal infos, the newest notifications naming them (newest first, at most
    /// ``EntitlementService/evidenceNotificationLimit``), grants and app account tokens. 404
    /// `unknown_user` for a user never seen and holding no grant.
    func evidence(userId: String) throws(AnyServiceFailure) -> HTTPResponse {
        let found: EntitlementService.Evidence?
        do { found = try service.evidence(forUser: userId) } catch { throw AnyServiceFailure(ServiceError.storeUnavailable(error)) }
        guard let evidence = found else { throw AnyServiceFailure(ServiceError.unknownUser(userId)) }
        var writer = JSONWriter(
            capacity: 256 + 128 * evidence.subscriptions.count + 512 * evidence.transactions.count + 384 * evidence.renewals.count
                + 256 * evidence.notifications.count + 256 * evidence.grants.count + 128 * evidence.appAccountTokens.count)
        writer.beginObject()
        writer.field("userId", userId)
        writer.array("subscriptions", evidence.subscriptions) { ServiceRouter.write($1, into: &$0) }
        writer.array("transactions", evidence.transactions) { ServiceRouter.write($1, into: &$0) }
        writer.array("renewals", evidence.renewals) { ServiceRouter.write($1, into: &$0) }
        writer.array("notifications", evidence.notifications) { ServiceRouter.write($1, into: &$0) }
        writer.array("grants", evidence.grants) { ServiceRouter.write($1, into: &$0) }
        writer.array("appAccountTokens", evidence.appAccountTokens) { ServiceRouter.write($1, into: &$0) }
        writer.endObject()
        return .json(200, writer.bytes)
    }

    /// `{"environment", "originalTransactionId", "linkedAt"}`.
    private static func write(_ subscription: LinkedSubscription, into writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("environment", subscription.environment.rawValue)
        writer.field("originalTransactionId", subscription.originalTransactionId)
        writer.field("linkedAt", subscription.linked.description)
        writer.endObject()
    }

    /// A stored transaction with every field it keeps: `revoked` is its cancellation or
    /// revocation instant as merged (R2.8), `unsignedRevoked` one that only unsigned copies gave
    /// next to a signed one, `signedAt` its `signedDate` (null: from a receipt).
    private static func write(_ transaction: Transaction, into writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("environment", transaction.environment.rawValue)
        writer.field("transactionId", transaction.transactionId)
        writer.field("originalTransactionId", transaction.originalTransactionId)
        writer.field("productId", transaction.productId)
        writer.field("purchased", transaction.purchase.description)
        writer.field("expires", transaction.expires?.description)
        writer.field("revoked", transaction.cancellation?.description)
        writer.field("unsignedRevoked", transaction.unsignedCancellation?.description)
        writer.field("revocationType", transaction.revocationType?.rawValue)
        writer.member("revocationPercentage", transaction.revocationPercentage) { $0.int(Int64($1)) }
        writer.field("upgraded", transaction.isUpgraded)
        writer.field("trial", transaction.isTrial)
        writer.field("introOffer", transaction.isIntroductoryOffer)
        writer.field("offer", transaction.offer?.rawValue)
        writer.field("signedAt", transaction.signedDate?.description)
        writer.endObject()
    }

    /// A renewal info as stored: `evidenceAt` is the instant it holds from (R2.7; null for infos
    /// stored before evidence instants were kept), which for signed ones is their `signedDate`.
    private static func write(_ renewal: RenewalInfo, into writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("environment", renewal.environment.rawValue)
        writer.field("originalTransactionId", renewal.originalTransactionId)
        writer.field("evidenceAt", renewal.evidence?.description)
        writer.field("productId", renewal.productId)
        writer.field("autoRenewProductId", renewal.autoRenewProductId)
        writer.member("autoRenewOn", renewal.autoRenewOn) { $0.bool($1) }
        writer.field("billingRetry", renewal.isInBillingRetry)
        writer.field("gracePeriodExpires", renewal.gracePeriodExpires?.description)
        writer.field("expirationIntent", renewal.expirationIntent)
        writer.endObject()
    }

    /// `{"receivedAt", "type", "subtype", "environment", "signed", "notificationUUID", "originalTransactionIds"}`.
    private static func write(_ notification: StoredNotification, into writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("receivedAt", notification.received.description)
        writer.field("type", notification.type)
        writer.field("subtype", notification.subtype)
        writer.field("environment", notification.environment?.rawValue)
        writer.field("signed", notification.signed)
        writer.field("notificationUUID", notification.uuid)
        writer.key("originalTransactionIds")
        writer.beginArray()
        for id in notification.originalTransactionIds { writer.string(id) }
        writer.endArray()
        writer.endObject()
    }
}
