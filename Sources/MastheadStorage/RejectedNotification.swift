public import Masthead

/// A notification body refused before it was applied (a signature that does not verify, or a body
/// that is not signed data at all), kept for forensics and never applied.
public struct RejectedNotification: Hashable, Sendable {
    /// What was refused: each kind is kept within its own bound, so that a flood of one cannot
    /// push the other out.
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        /// Signed data of Apple's shape (a well-formed ES256 compact JWS with a certificate chain)
        /// refused for its chain, its signature, its app or its content: a forgery, or Apple's own
        /// notification while signed data is not configured. The evidence worth keeping.
        case signed
        /// Anything else: a body that is not a notification document, or a token that is not a
        /// well-formed JWS.
        case malformed
    }

    /// The longest reason kept, in bytes of UTF-8; a longer one is cut (at a character) and ends with "…".
    public static let maxReasonBytes = 1024

    /// Its id, growing with every rejection.
    public var id: Int64
    /// When it was received.
    public var received: Instant
    /// Why it was refused (at most ``maxReasonBytes``).
    public var reason: String
    /// The body's length in bytes.
    public var bodyBytes: Int
    /// The body as received, when it was asked for.
    public var body: [UInt8]?
    /// What was refused.
    public var kind: Kind

    /// Creates a record.
    public init(id: Int64, received: Instant, reason: String, bodyBytes: Int, body: [UInt8]?, kind: Kind = .signed) {
        self.id = id
        self.received = received
        self.reason = reason
        self.bodyBytes = bodyBytes
        self.body = body
        self.kind = kind
    }

    /// `reason` as it is kept: at most ``maxReasonBytes`` bytes, cut at a character boundary and
    /// ended with "…" when longer (a reason may quote the body it refuses).
    public static func keptReason(_ reason: String) -> String {
        guard reason.utf8.count > maxReasonBytes else { return reason }
        let ellipsis = "…"
        var kept = ""
        var bytes = 0
        for scalar in reason.unicodeScalars {
            let size = String(scalar).utf8.count
            if bytes + size > maxReasonBytes - ellipsis.utf8.count { break }
            kept.unicodeScalars.append(scalar)
            bytes += size
        }
        return kept + ellipsis
    }
}
