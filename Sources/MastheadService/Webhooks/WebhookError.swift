/// The errors of the webhook delivery routes.
enum WebhookError: ServiceFailure {
    /// A query parameter is not as the route takes it: which, and what it takes.
    case invalidQuery(String)
    /// No message of the outbox has this id (never, or deleted after its retention).
    case unknownDelivery(Int64)
    /// The message is pending already: a replay would change nothing.
    case deliveryPending(Int64)

    var rendering: (status: Int, code: String, message: String) {
        switch self {
        case .invalidQuery(let message): (400, "invalid_query", message)
        case .unknownDelivery(let id): (404, "unknown_delivery", "no delivery \(id) (never made, or deleted after its retention)")
        case .deliveryPending(let id): (409, "delivery_pending", "delivery \(id) is pending already: it will be attempted without a replay")
        }
    }

    static var examples: [WebhookError] { [.invalidQuery(""), .unknownDelivery(0), .deliveryPending(0)] }
}
