public import Masthead

/// What a Google Play purchase token is bought as: a subscription (read with
/// `purchases.subscriptionsv2.get`) or a one-time product (`purchases.products.get`).
public enum GooglePlayPurchaseKind: String, Sendable, Hashable, CaseIterable {
    case subscription
    case product
}

/// A Google Play purchase token as the store keeps it: what its last read said, its place in a
/// chain of tokens, its user, and where its acknowledgement stands. Its orders are read with
/// ``StoreReader/googlePlayOrders(token:)``.
public struct StoredGooglePlayPurchase: Sendable, Hashable {
    /// The purchase token (its exact bytes are its identity).
    public var purchaseToken: String
    /// The app's package name it was read for.
    public var packageName: String
    public var kind: GooglePlayPurchaseKind
    /// Google Play's product id (a subscription's or a one-time product's), as read.
    public var playProductId: String
    /// The user it is linked to, or nil while nobody has linked it.
    public var userId: String?
    /// The app's id for the user (`obfuscatedExternalAccountId`) as its newest read gave it, or
    /// nil without one: when set, the token is that user's or nobody's (R18).
    public var obfuscatedExternalAccountId: String?
    /// The token it replaced (`linkedPurchaseToken`): a resubscription, upgrade or downgrade.
    public var linkedPurchaseToken: String?
    /// The id of its chain of tokens (the first order of the chain, R18), or nil while the chain has no order.
    public var chainId: String?
    /// The state its newest read gave.
    public var state: GooglePlaySubscriptionState
    /// Whether Google says it is acknowledged, or Masthead acknowledged it.
    public var acknowledged: Bool
    /// Sandbox for test purchases (R14).
    public var environment: Environment
    /// When Masthead first read it.
    public var observed: Instant
    /// When Masthead last read it: a read older than this one changes no state.
    public var lastRead: Instant
    /// The JSON body of its newest read, as Google sent it.
    public var body: [UInt8]
    /// How many acknowledgements were tried.
    public var acknowledgementAttempts: Int
    /// When the next acknowledgement is due; nil when none is owed (acknowledged, pending, expired).
    public var nextAcknowledgement: Instant?
    /// Why the last acknowledgement failed, or nil.
    public var acknowledgementError: String?

    /// A stored purchase from its fields.
    public init(
        purchaseToken: String, packageName: String, kind: GooglePlayPurchaseKind, playProductId: String, userId: String?,
        obfuscatedExternalAccountId: String?, linkedPurchaseToken: String?, chainId: String?, state: GooglePlaySubscriptionState, acknowledged: Bool, environment: Environment,
        observed: Instant, lastRead: Instant, body: [UInt8], acknowledgementAttempts: Int, nextAcknowledgement: Instant?,
        acknowledgementError: String?
    ) {
        self.purchaseToken = purchaseToken
        self.packageName = packageName
        self.kind = kind
        self.playProductId = playProductId
        self.userId = userId
        self.obfuscatedExternalAccountId = obfuscatedExternalAccountId
        self.linkedPurchaseToken = linkedPurchaseToken
        self.chainId = chainId
        self.state = state
        self.acknowledged = acknowledged
        self.environment = environment
        self.observed = observed
        self.lastRead = lastRead
        self.body = body
        self.acknowledgementAttempts = acknowledgementAttempts
        self.nextAcknowledgement = nextAcknowledgement
        self.acknowledgementError = acknowledgementError
    }

    /// Stored purchases compare and hash their texts by their exact bytes.
    public static func == (lhs: StoredGooglePlayPurchase, rhs: StoredGooglePlayPurchase) -> Bool {
        lhs.texts == rhs.texts && lhs.kind == rhs.kind && lhs.state == rhs.state && lhs.acknowledged == rhs.acknowledged
            && lhs.environment == rhs.environment && lhs.observed == rhs.observed && lhs.lastRead == rhs.lastRead && lhs.body == rhs.body
            && lhs.acknowledgementAttempts == rhs.acknowledgementAttempts && lhs.nextAcknowledgement == rhs.nextAcknowledgement
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(texts)
        hasher.combine(lastRead)
    }

    /// Its texts (ids, and the last acknowledgement error) as exact keys, nil where absent.
    private var texts: [ExactKey?] {
        [purchaseToken, packageName, playProductId].map(ExactKey.init)
            + [userId, obfuscatedExternalAccountId, linkedPurchaseToken, chainId, acknowledgementError].map { $0.map(ExactKey.init) }
    }
}
