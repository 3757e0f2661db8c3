/// One paid order of a Google Play purchase, as Masthead observed it (R18).
///
/// Google answers a read of a purchase token with the purchase's current state, not its history;
/// Masthead keeps each order it sees: a subscription's first order and each renewal (order ids
/// `GPA.1234-5678-9012-34567`, `…..0`, `…..1`), or a one-time product's single order.
public struct GooglePlayOrder: Sendable, Hashable {
    /// The purchase token the order was read from.
    public var purchaseToken: String
    /// Google's order id, such as `GPA.1234-5678-9012-34567..1`.
    public var orderId: String
    /// The catalog product the Play product id (and base plan) maps to (R3).
    public var productId: String
    /// When the order's paid time starts (R18 says how Masthead knows a renewal's start).
    public var start: Instant
    /// When the order's paid time ends, as the latest read of its token states it; nil for a
    /// one-time product (the catalog product's type decides what it gives).
    public var expiry: Instant?
    /// `.sandbox` for a test purchase (R14).
    public var environment: Environment
    /// When Google voided the order (a refund or chargeback); nil when it was not.
    public var refunded: Instant?
    /// Whether the refund was partial, which ends the order at ``refunded`` (R5.3); a full refund
    /// means the order never paid for anything (R5.1).
    public var refundIsProrated: Bool
    /// When Masthead first read the order.
    public var observed: Instant

    /// Creates an order.
    public init(
        purchaseToken: String, orderId: String, productId: String, start: Instant, expiry: Instant?, environment: Environment = .production,
        refunded: Instant? = nil, refundIsProrated: Bool = false, observed: Instant
    ) {
        self.purchaseToken = purchaseToken
        self.orderId = orderId
        self.productId = productId
        self.start = start
        self.expiry = expiry
        self.environment = environment
        self.refunded = refunded
        self.refundIsProrated = refundIsProrated
        self.observed = observed
    }

    /// Orders compare and hash their ids by their exact bytes.
    public static func == (lhs: GooglePlayOrder, rhs: GooglePlayOrder) -> Bool {
        lhs.purchaseToken.sameBytes(as: rhs.purchaseToken) && lhs.orderId.sameBytes(as: rhs.orderId) && lhs.productId.sameBytes(as: rhs.productId)
            && lhs.start == rhs.start && lhs.expiry == rhs.expiry && lhs.environment == rhs.environment && lhs.refunded == rhs.refunded
            && lhs.refundIsProrated == rhs.refundIsProrated && lhs.observed == rhs.observed
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(ExactKey(purchaseToken))
        hasher.combine(ExactKey(orderId))
        hasher.combine(ExactKey(productId))
        hasher.combine(start)
        hasher.combine(expiry)
        hasher.combine(environment)
        hasher.combine(refunded)
        hasher.combine(refundIsProrated)
        hasher.combine(observed)
    }

    /// The order with one more refund of it taken in (R18): of an order's refunds the earliest
    /// instant counts, and the order is refunded in part (R5.3) only while every refund of it was
    /// partial; a full refund, reported before or after a partial one, makes it refunded in full
    /// (R5.1) from the earliest. So the refunds of an order combine in any order of arrival.
    /// - Parameters:
    ///   - at: when Google voided the order (its `voidedTimeMillis`) or a read said it was cancelled.
    ///   - prorated: whether that refund was partial.
    public func refunding(at: Instant, prorated: Bool) -> GooglePlayOrder {
        var order = self
        order.refunded = refunded.map { min($0, at) } ?? at
        order.refundIsProrated = prorated && (refunded == nil || refundIsProrated)
        return order
    }

    /// The prefix of every transaction id (and original transaction id) made from a Google Play
    /// order; no App Store id begins with it (R18).
    public static let transactionIdPrefix = "googlePlay:"

    /// The product id of an order whose Play product (and base plan) the catalog does not map:
    /// `googlePlay:` + the Play product id (+ `/` + the base plan). No catalog product id begins
    /// with `googlePlay:`, so the order grants nothing and is counted as an unknown product (R3);
    /// a read of its token after the catalog maps it gives the catalog's product.
    public static func unknownProductId(playProductId: String, basePlanId: String?) -> String {
        transactionIdPrefix + playProductId + (basePlanId.map { "/" + $0 } ?? "")
    }

    /// The order as a transaction of the engine (R18): id `googlePlay:` + ``orderId``, original
    /// id `googlePlay:` + `chainId` (the first order id of the first token of the chain the
    /// order's token belongs to through `linkedPurchaseToken`), so that R4–R16 apply unchanged
    /// and no App Store id ever equals one. A refund is the transaction's cancellation: a full one
    /// (R5.1) or a partial one that ends it (R5.3, `REFUND_PRORATED`).
    /// - Parameter replacedAt: when another token linked to this order's token took over (the
    ///   start of its first order): an order not refunded that runs past it ends there, as an
    ///   upgrade does (R5.2). Nil when no token replaced it.
    public func transaction(chainId: String, replacedAt: Instant? = nil) -> Transaction {
        var transaction = Transaction(
            transactionId: Self.transactionIdPrefix + orderId, originalTransactionId: Self.transactionIdPrefix + chainId,
            productId: productId, purchase: start, expires: expiry, cancellation: refunded, environment: environment,
            revocationType: refunded == nil ? nil : (refundIsProrated ? .refundProrated : .refundFull))
        if refunded == nil, let replacedAt, let expiry, replacedAt < expiry {
            transaction.cancellation = max(replacedAt, start)
            transaction.isUpgraded = true
        }
        return transaction
    }
}
