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
