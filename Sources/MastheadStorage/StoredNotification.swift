public import Masthead

/// A notification as stored, without its body: what a user's evidence shows of it.
public struct StoredNotification: Hashable, Sendable {
    /// The row's id, in the order notifications were stored.
    public var id: Int64
    /// When the service received it.
    public var received: Instant
    /// Its `notificationType` (version 2) or `notification_type` (version 1), as sent.
    public var type: String
    /// Its version 2 `subtype`, or nil.
    public var subtype: String?
    /// The environment it came from, when it could be read.
    public var environment: Environment?
    /// Whether it came as a version 2 signed payload (else a version 1 notification).
    public var signed: Bool
    /// Its version 2 `notificationUUID`, or nil.
    public var uuid: String?
    /// The original transaction ids of the subscriptions it named, as stored.
    public var originalTransactionIds: [String]

    /// Creates a stored notification's summary.
    public init(
        id: Int64, received: Instant, type: String, subtype: String?, environment: Environment?, signed: Bool, uuid: String?,
        originalTransactionIds: [String]
    ) {
        self.id = id
        self.received = received
        self.type = type
        self.subtype = subtype
        self.environment = environment
        self.signed = signed
        self.uuid = uuid
        self.originalTransactionIds = originalTransactionIds
    }
}
