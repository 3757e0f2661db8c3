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
    /// orders buy ``GooglePlayOrder/unknownProductId(playProductId:basePlanId:)``, which grants
    /// nothing (R3).
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

    /// Observations compare and hash their ids by their exact bytes.
    public static func == (lhs: GooglePlayObservation, rhs: GooglePlayObservation) -> Bool {
        lhs.purchaseToken.sameBytes(as: rhs.purchaseToken) && lhs.linkedPurchaseToken.map(ExactKey.init) == rhs.linkedPurchaseToken.map(ExactKey.init)
            && lhs.state == rhs.state && lhs.acknowledged == rhs.acknowledged
            && lhs.obfuscatedExternalAccountId.map(ExactKey.init) == rhs.obfuscatedExternalAccountId.map(ExactKey.init)
            && lhs.playProductId.sameBytes(as: rhs.playProductId) && lhs.orders == rhs.orders
            && lhs.unknownProductIds.map(ExactKey.init) == rhs.unknownProductIds.map(ExactKey.init)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(ExactKey(purchaseToken))
        hasher.combine(linkedPurchaseToken.map(ExactKey.init))
        hasher.combine(state)
        hasher.combine(acknowledged)
        hasher.combine(obfuscatedExternalAccountId.map(ExactKey.init))
        hasher.combine(ExactKey(playProductId))
        hasher.combine(orders)
        hasher.combine(unknownProductIds.map(ExactKey.init))
    }
}
