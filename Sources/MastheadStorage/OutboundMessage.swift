/// A message the service owes an outside endpoint: a webhook event or a forwarded notification.
///
/// Written into the outbox (``StoreWriter/enqueueOutbound(_:now:)``) in the transaction of the
/// change it reports, then delivered by a worker: at least once, in order per target and
/// ``orderingKey``, retried until a day after it was enqueued.
public struct OutboundMessage: Sendable, Hashable {
    /// What a message carries.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// A webhook event the service wrote (`entitlements.changed`…).
        case event
        /// A notification from Apple, forwarded as received.
        case forward
    }

    public var kind: Kind
    /// The absolute http(s) URL it is POSTed to.
    public var target: String
    /// Messages with the same target and ordering key are delivered in the order they were
    /// enqueued (an event's: its user id); nil: no order with any other message.
    public var orderingKey: String?
    /// The idempotency id sent as `Masthead-Event-Id` (an event's `id`; a forward's: a new UUID).
    public var eventId: String
    /// The `Content-Type` it is sent with.
    public var contentType: String
    /// The bytes POSTed, unchanged.
    public var body: [UInt8]

    /// A message (see the properties of the same names).
    public init(kind: Kind, target: String, orderingKey: String?, eventId: String, contentType: String, body: [UInt8]) {
        self.kind = kind
        self.target = target
        self.orderingKey = orderingKey
        self.eventId = eventId
        self.contentType = contentType
        self.body = body
    }
}
