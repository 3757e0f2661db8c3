import Masthead
import MastheadFormats
import MastheadHTTP
import MastheadJSON
import MastheadStorage

/// `POST /v1/users/{userId}/receipts`, the answer every purchase route gives once committed, and
/// `GET /v1/refresh-due`.
extension ServiceRouter {
    /// The route listing the subscriptions due for a refresh, in the OpenAPI document's order.
    static let refreshRoutes: [Route] = [
        Route(
            ["GET"], "/v1/refresh-due", .apiToken, label: "refresh_due",
            .immediate { router, request, _ throws(AnyServiceFailure) in try router.refreshDue(request) }),
    ]

    /// The purchase routes, in the OpenAPI document's order.
    static let purchaseRoutes: [Route] = [
        Route(
            ["POST"], "/v1/users/{userId}/receipts", .apiToken, label: "receipts",
            .deferred { router, request, ids, reply in router.postReceipt(request, userId: ids[.user], reply: reply) }),
        Route(
            ["POST"], "/v1/users/{userId}/transactions", .apiToken, label: "transactions",
            .deferred { router, request, ids, reply in router.postTransactions(request, userId: ids[.user], reply: reply) }),
        Route(
            ["POST"], "/v1/users/{userId}/restore", .apiToken, label: "restore",
            .deferred { router, request, ids, reply in router.restore(request, userId: ids[.user], reply: reply) }),
        Route(
            ["POST"], "/v1/users/{userId}/app-receipts", .apiToken, label: "app_receipts",
            .deferred { router, request, ids, reply in router.postAppReceipt(request, userId: ids[.user], reply: reply) }),
    ]

    /// `POST /v1/users/{userId}/receipts`: a verifyReceipt response, stored and linked to the user,
    /// answered with the user's entitlements once committed.
    func postReceipt(_ request: HTTPRequest, userId: String, reply: @escaping @Sendable (HTTPResponse) -> Void) {
        let document: JSONDocument
        do { document = try JSONDocument(parsing: request.body) } catch {
            return reply(HintedFailure.hinted(ServiceError.invalidJSON(error), ServiceRouter.receiptBodyHint(body: request.body, root: nil)).response)
        }
        let receipt: Receipt
        do { receipt = try ReceiptDecoder(catalog: service.catalog).decode(document.root, path: "$") } catch {
            if case .receiptRejected = error { return reply(PurchaseError.receiptRejected(error).response) }
            return reply(HintedFailure.hinted(PurchaseError.invalidReceipt(error), ServiceRouter.receiptBodyHint(body: request.body, root: document.root)).response)
        }
        let latest = document.root.member("latest_receipt")?.string
        service.postReceipt(userId: userId, receipt: receipt, latestReceipt: latest, completion: purchasesAnswer(userId: userId, environment: receipt.environment, what: "receipt", reply: reply))
    }

    /// The answer to a posted receipt or signed transactions once committed (or refused): the
    /// user's entitlements now in `environment`.
    func purchasesAnswer(
        userId: String, environment: Environment, what: String, reply: @escaping @Sendable (HTTPResponse) -> Void
    ) -> @Sendable (EntitlementService.ReceiptOutcome) -> Void {
        let at = service.clock()
        let catalog = service.catalog
        return { outcome in
            switch outcome {
            case .stored(let history):
                let answer = EntitlementEngine(catalog: catalog).evaluate(history, at: at, environment: environment)
                var writer = JSONWriter(capacity: 4096)
                EntitlementJSON.write(answer, userId: userId, into: &writer)
                reply(.json(200, writer.bytes))
            case .storedUnread(let error):
                // Committed: say so, and that the entitlements could not be read back (not a 503, which would mean "not stored").
                var writer = JSONWriter(capacity: 256)
                writer.beginObject()
                writer.field("user_id", userId)
                writer.field("stored", true)
                writer.field("entitlements_unavailable", "the \(what) is stored; reading the entitlements back failed: \(error)")
                writer.endObject()
                reply(.json(200, writer.bytes))
            case .failed(StorageError.receiptAlreadyInUse(let environment, let original, _)):
                reply(PurchaseError.receiptAlreadyInUse(environment: environment, originalTransactionId: original).response)
            case .failed(PurchaseError.restoreTimedOut(let reason)):
                reply(PurchaseError.restoreTimedOut(reason).response)
            case .failed(let error):
                reply(ServiceError.notStored(what, error).response)
            }
        }
    }

    /// `GET /v1/refresh-due?within=`: the subscriptions expiring within the window (3 days by default).
    func refreshDue(_ request: HTTPRequest) throws(AnyServiceFailure) -> HTTPResponse {
        guard let window = ServiceConfiguration.milliseconds(fromDuration: request.queryValue("within") ?? "3d") else { throw AnyServiceFailure(PurchaseError.invalidWindow) }
        let due: [RefreshDue]
        do { due = try service.refreshDue(within: window) } catch { throw AnyServiceFailure(ServiceError.storeUnavailable(error)) }
        var writer = JSONWriter(capacity: 1024)
        writer.beginObject()
        writer.key("subscriptions")
        writer.beginArray()
        for entry in due {
            writer.beginObject()
            writer.field("environment", entry.environment.rawValue)
            writer.field("originalTransactionId", entry.originalTransactionId)
            writer.field("userId", entry.userId)
            writer.field("expires", entry.expires.description)
            writer.field("latestReceipt", entry.latestReceipt)
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return .json(200, writer.bytes)
    }
}
