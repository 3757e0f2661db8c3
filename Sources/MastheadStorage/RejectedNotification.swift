public import Masthead

/// A notification body refused before it was read (a signature that does not verify), kept for
/// forensics and never applied.
public struct RejectedNotification: Hashable, Sendable {
    /// Its id, growing with every rejection.
    public var id: Int64
    /// When it was received.
    public var received: Instant
    /// Why it was refused.
    public var reason: String
    /// The body's length in bytes.
    public var bodyBytes: Int
    /// The body as received, when it was asked for.
    public var body: [UInt8]?

    /// Creates a record.
    public init(id: Int64, received: Instant, reason: String, bodyBytes: Int, body: [UInt8]?) {
        self.id = id
        self.received = received
        self.reason = reason
        self.bodyBytes = bodyBytes
        self.body = body
    }
}
