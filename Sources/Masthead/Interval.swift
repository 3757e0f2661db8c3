/// What a piece of paid (or free, or provisional) time comes from.
public enum IntervalKind: String, Hashable, Sendable, CaseIterable {
    /// An auto-renewable purchase or renewal, `[purchase, expires)` (R4).
    case paid
    /// An auto-renewable free trial.
    case trial
    /// An auto-renewable introductory offer.
    case introductoryOffer
    /// An auto-renewable period bought under another offer: promotional, offer code or win-back
    /// (``Transaction/offer``, signed transactions).
    case offer
    /// Cut short at an upgrade to a higher level: `[purchase, min(expires, cancellation))` (R5.2).
    case upgraded
    /// A stacked non-renewing purchase (R6).
    case nonRenewing
    /// A free subscription, never ending (R7).
    case free
    /// A billing grace extension, provisional while the as-of instant lies in it (R9).
    case grace
    /// A publisher's span grant, `[start, end)`, cut at its revocation (R17).
    case grant
}

/// The half-open time `[start, end)` one transaction pays for (R1), or one grant gives (R17).
public struct Interval: Hashable, Sendable {
    public var start: Instant
    public var end: Instant
    public var kind: IntervalKind
    public var access: AccessStyle
    /// The transaction it comes from; for a grant (``IntervalKind/grant``), the grant id.
    public var transactionId: String
    /// The product bought; for a grant, the grant's source (``Grant/source``).
    public var productId: String
    /// The streaming window of the product (R12); nil for all issues.
    public var window: Int?

    /// Creates an interval.
    public init(
        start: Instant, end: Instant, kind: IntervalKind, access: AccessStyle, transactionId: String,
        productId: String, window: Int? = nil
    ) {
        self.start = start
        self.end = end
        self.kind = kind
        self.access = access
        self.transactionId = transactionId
        self.productId = productId
        self.window = window
    }

    /// Whether `instant` lies in `[start, end)`.
    public func contains(_ instant: Instant) -> Bool { start <= instant && instant < end }
}
