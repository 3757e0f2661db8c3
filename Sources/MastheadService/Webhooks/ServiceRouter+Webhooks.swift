import Masthead
import MastheadHTTP
import MastheadJSON
import MastheadStorage

/// The routes of the outbox's deliveries (webhook events, forwarded notifications), with the
/// admin token: `GET /v1/webhooks/deliveries`, `POST /v1/webhooks/deliveries/{deliveryId}/replay`
/// and `POST /v1/webhooks/deliveries/replay` (every parked one).
extension ServiceRouter {
    /// The webhook routes, in the OpenAPI document's order.
    static let webhookRoutes: [Route] = [
        Route(
            ["GET"], "/v1/webhooks/deliveries", .adminToken, label: "webhook_deliveries",
            .immediate { router, request, _ throws(AnyServiceFailure) in try router.deliveries(request) }),
        Route(
            ["POST"], "/v1/webhooks/deliveries/replay", .adminToken, label: "webhook_replay_failed",
            .deferred { router, _, _, reply in router.replayFailedDeliveries(reply: reply) }),
        Route(
            ["POST"], "/v1/webhooks/deliveries/{deliveryId}/replay", .adminToken, label: "webhook_replay",
            .deferred { router, _, ids, reply in router.replayDelivery(ids[.delivery], reply: reply) }),
    ]

    /// The most deliveries one answer lists, and how many when `limit` is not given.
    static let maxDeliveriesListed = 1000
    static let defaultDeliveriesListed = 100

    /// `GET /v1/webhooks/deliveries?status=&before=&limit=`: the outbox's messages, newest first,
    /// of one state when `status` is given, of ids below `before` (the previous page's `next`).
    func deliveries(_ request: HTTPRequest) throws(AnyServiceFailure) -> HTTPResponse {
        var state: OutboundDelivery.State?
        if let text = request.queryValue("status") {
            guard let value = OutboundDelivery.State(rawValue: text) else {
                throw AnyServiceFailure(WebhookError.invalidQuery("status must be pending, delivered or failed, not \"\(text)\""))
            }
            state = value
        }
        var before: Int64?
        if let text = request.queryValue("before") {
            guard let value = PathIdentifier.deliveryId(text) else {
                throw AnyServiceFailure(WebhookError.invalidQuery("before must be a delivery id, a whole number from 1"))
            }
            before = value
        }
        var limit = ServiceRouter.defaultDeliveriesListed
        if let text = request.queryValue("limit") {
            guard text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }), let value = Int(text),
                (1...ServiceRouter.maxDeliveriesListed).contains(value)
            else {
                throw AnyServiceFailure(WebhookError.invalidQuery("limit must be a whole number from 1 to \(ServiceRouter.maxDeliveriesListed)"))
            }
            limit = value
        }
        let page: [OutboundDelivery]
        do { page = try service.outboundDeliveries(state: state, before: before, limit: limit) } catch {
            throw AnyServiceFailure(ServiceError.storeUnavailable(error))
        }
        var writer = JSONWriter(capacity: 64 + page.reduce(0) { $0 + 320 + $1.message.target.utf8.count + ($1.lastError?.utf8.count ?? 0) })
        writer.beginObject()
        writer.array("deliveries", page) { writer, delivery in Self.write(delivery, into: &writer) }
        writer.member("next", page.count == limit ? page.last?.id : nil) { writer, id in writer.int(id) }
        writer.endObject()
        return .json(200, writer.bytes)
    }

    /// `POST /v1/webhooks/deliveries/{deliveryId}/replay`: a delivered or parked message sent
    /// again (pending, attempts reset, due now, its retry window starting now), answered with it
    /// once committed; 404 for an unknown id, 409 for a pending one.
    func replayDelivery(_ text: String, reply: @escaping @Sendable (HTTPResponse) -> Void) {
        // The path's rule holds already: digits, from 1.
        guard let id = PathIdentifier.deliveryId(text) else { return reply(WebhookError.unknownDelivery(0).response) }
        service.replayOutbound(id: id) { result in
            switch result {
            case .success(.replayed(let delivery)):
                var writer = JSONWriter(capacity: 512)
                Self.write(delivery, into: &writer)
                reply(.json(200, writer.bytes))
            case .success(.pending): reply(WebhookError.deliveryPending(id).response)
            case .success(.unknown): reply(WebhookError.unknownDelivery(id).response)
            case .failure(let error): reply(ServiceError.notStored("replay", error).response)
            }
        }
    }

    /// `POST /v1/webhooks/deliveries/replay`: every parked message replayed; `{"replayed": n}`.
    func replayFailedDeliveries(reply: @escaping @Sendable (HTTPResponse) -> Void) {
        service.replayFailedOutbound { result in
            switch result {
            case .success(let count):
                var writer = JSONWriter(capacity: 32)
                writer.beginObject()
                writer.field("replayed", Int64(count))
                writer.endObject()
                reply(.json(200, writer.bytes))
            case .failure(let error): reply(ServiceError.notStored("replay", error).response)
            }
        }
    }

    /// A delivery as answered: `id`, `kind`, `target` (without its user, password and query:
    /// see ``RedactedTarget``), `eventId`, `orderingKey` (null: none),
    /// `contentType`, `bodyBytes`, `status`, `attempts`, `enqueued`, `nextAttempt` (null unless
    /// pending), `finished` (null while pending), `lastStatus`, `lastError` (null: none).
    static func write(_ delivery: OutboundDelivery, into writer: inout JSONWriter) {
        let message = delivery.message
        writer.beginObject()
        writer.field("id", delivery.id)
        writer.field("kind", message.kind.rawValue)
        writer.field("target", RedactedTarget.text(message.target))
        writer.field("eventId", message.eventId)
        writer.field("orderingKey", message.orderingKey)
        writer.field("contentType", message.contentType)
        writer.field("bodyBytes", Int64(delivery.bodyBytes))
        writer.field("status", delivery.state.rawValue)
        writer.field("attempts", Int64(delivery.attempts))
        writer.field("enqueued", delivery.enqueued.description)
        writer.field("nextAttempt", delivery.state == .pending ? delivery.nextAttempt.description : nil)
        writer.field("finished", delivery.finished?.description)
        writer.member("lastStatus", delivery.lastStatus) { writer, status in writer.int(Int64(status)) }
        writer.field("lastError", delivery.lastError)
        writer.endObject()
    }
}
