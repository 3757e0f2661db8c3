public import Masthead

// A scratch copy of the Google Play domain types (R18), removed when the domain module has them.

/// The state of a Google Play purchase as one read of its token gives it (R18): Google's
/// `subscriptionState` words for subscriptions, and the `purchaseState` of a one-time product.
///
/// A word Google adds later is kept as sent (``other(_:)``) and gives no access. Words compare by
/// their exact bytes.
public enum GooglePlaySubscriptionState: Hashable, Sendable {
    /// `SUBSCRIPTION_STATE_PENDING`: bought, not yet paid; gives nothing.
    case pending
    /// `SUBSCRIPTION_STATE_ACTIVE`.
    case active
    /// `SUBSCRIPTION_STATE_IN_GRACE_PERIOD`: a renewal payment failed and Google retries while the
    /// user keeps access.
    case inGracePeriod
    /// `SUBSCRIPTION_STATE_ON_HOLD`: the payment still failed after any grace; no access (a lapse).
    case onHold
    /// `SUBSCRIPTION_STATE_PAUSED`: the user paused; no access (a lapse).
    case paused
    /// `SUBSCRIPTION_STATE_CANCELED`: will not renew; access until the expiry.
    case canceled
    /// `SUBSCRIPTION_STATE_EXPIRED`.
    case expired
    /// `SUBSCRIPTION_STATE_PENDING_PURCHASE_CANCELED`: a pending purchase that was never paid.
    case pendingPurchaseCanceled
    /// `SUBSCRIPTION_STATE_UNSPECIFIED`.
    case unspecified
    /// A one-time product's `purchaseState` 0: purchased.
    case oneTimePurchased
    /// A one-time product's `purchaseState` 1: cancelled (refunded or never completed).
    case oneTimeCanceled
    /// A one-time product's `purchaseState` 2: pending payment; gives nothing.
    case oneTimePending
    /// A word Masthead does not know, as Google sent it.
    case other(String)

    /// The state named by Google's word (or, for one-time products, the words of ``word``).
    public init(word: String) {
        for known in Self.known where known.word.sameBytes(as: word) {
            self = known
            return
        }
        self = .other(word)
    }

    /// A one-time product's state from its numeric `purchaseState`; nil for a number Google does
    /// not define.
    public init?(purchaseState: Int64) {
        switch purchaseState {
        case 0: self = .oneTimePurchased
        case 1: self = .oneTimeCanceled
        case 2: self = .oneTimePending
        default: return nil
        }
    }

    /// The word that names the state: Google's `subscriptionState` value, or for one-time
    /// products `PURCHASE_STATE_PURCHASED`, `PURCHASE_STATE_CANCELED`, `PURCHASE_STATE_PENDING`.
    public var word: String {
        switch self {
        case .pending: "SUBSCRIPTION_STATE_PENDING"
        case .active: "SUBSCRIPTION_STATE_ACTIVE"
        case .inGracePeriod: "SUBSCRIPTION_STATE_IN_GRACE_PERIOD"
        case .onHold: "SUBSCRIPTION_STATE_ON_HOLD"
        case .paused: "SUBSCRIPTION_STATE_PAUSED"
        case .canceled: "SUBSCRIPTION_STATE_CANCELED"
        case .expired: "SUBSCRIPTION_STATE_EXPIRED"
        case .pendingPurchaseCanceled: "SUBSCRIPTION_STATE_PENDING_PURCHASE_CANCELED"
        case .unspecified: "SUBSCRIPTION_STATE_UNSPECIFIED"
        case .oneTimePurchased: "PURCHASE_STATE_PURCHASED"
        case .oneTimeCanceled: "PURCHASE_STATE_CANCELED"
        case .oneTimePending: "PURCHASE_STATE_PENDING"
        case .other(let word): word
        }
    }

    /// Whether the state lets the reader in until the latest order's expiry (R18): `ACTIVE`,
    /// `IN_GRACE_PERIOD` and `CANCELED` (until the expiry), and a purchased one-time product.
    /// Every other state, and a word Masthead does not know, gives nothing.
    public var givesAccess: Bool {
        switch self {
        case .active, .inGracePeriod, .canceled, .oneTimePurchased: true
        default: false
        }
    }

    /// Whether access stopped without the subscription ending for good: a hold or a pause, which
    /// Masthead treats as a lapse (R8, R18).
    public var isSuspended: Bool {
        switch self {
        case .onHold, .paused: true
        default: false
        }
    }

    private static let known: [GooglePlaySubscriptionState] = [
        .pending, .active, .inGracePeriod, .onHold, .paused, .canceled, .expired, .pendingPurchaseCanceled, .unspecified,
        .oneTimePurchased, .oneTimeCanceled, .oneTimePending,
    ]

    public static func == (lhs: GooglePlaySubscriptionState, rhs: GooglePlaySubscriptionState) -> Bool { lhs.word.sameBytes(as: rhs.word) }

    public func hash(into hasher: inout Hasher) { hasher.combine(ExactKey(word)) }
}

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

    /// The prefix of every transaction id (and original transaction id) made from a Google Play
    /// order; no App Store id begins with it (R18).
    public static let transactionIdPrefix = "googlePlay:"

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

/// What one read of a Google Play purchase token says (from `purchases.subscriptionsv2.get` or
/// `purchases.products.get`), mapped onto the catalog (R18).
public struct GooglePlayObservation: Sendable, Hashable {
    /// The token read.
    public var purchaseToken: String
    /// The token this purchase replaced (a re-subscription, upgrade or downgrade): both are one
    /// subscription, as transactions sharing an original transaction id are.
    public var linkedPurchaseToken: String?
    public var state: GooglePlaySubscriptionState
    /// Whether the purchase has been acknowledged (Google refunds one that is not within 3 days).
    public var acknowledged: Bool
    /// The app's id for the user, set at purchase (`obfuscatedExternalAccountId`); nil without one.
    public var obfuscatedExternalAccountId: String?
    /// The Play product id of the purchase (of its first line item for a subscription).
    public var playProductId: String
    /// The orders this read adds or confirms, each mapped to its catalog product.
    public var orders: [GooglePlayOrder]
    /// The Play ids (`productId`, or `productId/basePlanId`) the catalog does not map: their
    /// orders are left out (R3).
    public var unknownProductIds: [String]

    /// Creates an observation.
    public init(
        purchaseToken: String, linkedPurchaseToken: String? = nil, state: GooglePlaySubscriptionState, acknowledged: Bool,
        obfuscatedExternalAccountId: String? = nil, playProductId: String, orders: [GooglePlayOrder], unknownProductIds: [String] = []
    ) {
        self.purchaseToken = purchaseToken
        self.linkedPurchaseToken = linkedPurchaseToken
        self.state = state
        self.acknowledged = acknowledged
        self.obfuscatedExternalAccountId = obfuscatedExternalAccountId
        self.playProductId = playProductId
        self.orders = orders
        self.unknownProductIds = unknownProductIds
    }
}

