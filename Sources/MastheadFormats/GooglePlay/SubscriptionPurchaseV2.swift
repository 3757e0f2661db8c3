public import Masthead
import MastheadJSON

/// A read of a subscription's purchase token (`purchases.subscriptionsv2.get`): the fields R18
/// uses. Members Google adds, and those Masthead does not use, are ignored.
public struct SubscriptionPurchaseV2: Hashable, Sendable {
    /// When the subscription was granted; absent while it is pending.
    public var startTime: Instant?
    public var subscriptionState: GooglePlaySubscriptionState
    /// The latest order (deprecated by Google in favour of each line item's
    /// ``LineItem/latestSuccessfulOrderId``, which wins).
    public var latestOrderId: String?
    /// The token of the subscription this one replaced.
    public var linkedPurchaseToken: String?
    /// `acknowledgementState` is `ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED`.
    public var acknowledged: Bool
    /// `externalAccountIdentifiers.obfuscatedExternalAccountId`.
    public var obfuscatedExternalAccountId: String?
    /// `testPurchase` is present: a license tester's purchase (R14: sandbox).
    public var isTestPurchase: Bool
    public var lineItems: [LineItem]

    /// One item of the purchase: a base plan (or offer) of a subscription product.
    public struct LineItem: Hashable, Sendable {
        /// The Play product id.
        public var productId: String
        /// When the item's access ends (or ended).
        public var expiryTime: Instant?
        /// `offerDetails.basePlanId`.
        public var basePlanId: String?
        /// The item's latest successful order.
        public var latestSuccessfulOrderId: String?
        /// `autoRenewingPlan.autoRenewEnabled`; nil for a prepaid plan.
        public var autoRenewEnabled: Bool?

        /// Creates a line item.
        public init(productId: String, expiryTime: Instant?, basePlanId: String?, latestSuccessfulOrderId: String? = nil, autoRenewEnabled: Bool? = nil) {
            self.productId = productId
            self.expiryTime = expiryTime
            self.basePlanId = basePlanId
            self.latestSuccessfulOrderId = latestSuccessfulOrderId
            self.autoRenewEnabled = autoRenewEnabled
        }
    }

    /// Creates a read.
    public init(
        startTime: Instant?, subscriptionState: GooglePlaySubscriptionState, latestOrderId: String? = nil, linkedPurchaseToken: String? = nil,
        acknowledged: Bool = false, obfuscatedExternalAccountId: String? = nil, isTestPurchase: Bool = false, lineItems: [LineItem]
    ) {
        self.startTime = startTime
        self.subscriptionState = subscriptionState
        self.latestOrderId = latestOrderId
        self.linkedPurchaseToken = linkedPurchaseToken
        self.acknowledged = acknowledged
        self.obfuscatedExternalAccountId = obfuscatedExternalAccountId
        self.isTestPurchase = isTestPurchase
        self.lineItems = lineItems
    }

    /// Reads a `SubscriptionPurchaseV2` resource: `subscriptionState` and `lineItems` (at least
    /// one, each with a `productId`) are required, and unless the purchase is pending a
    /// `startTime`, and each item's `expiryTime` and order (`latestSuccessfulOrderId`, else the
    /// purchase's `latestOrderId`); times are RFC 3339 (Google writes 0, 3, 6 or 9 fractional
    /// digits; read to the millisecond).
    /// - Throws: ``FormatError`` naming the JSON path of what is missing or wrong.
    public static func decode(_ bytes: [UInt8]) throws(FormatError) -> SubscriptionPurchaseV2 {
        let root = try GooglePlayFields(try JSONValue.parsed(bytes), "$", what: "a SubscriptionPurchaseV2 object")
        let state = GooglePlaySubscriptionState(word: try root.required("subscriptionState") { (key) throws(FormatError) in try root.string(key) })
        let items = try root.required("lineItems") { (key) throws(FormatError) in try root.array(key) }
        guard !items.isEmpty else {
            throw .invalidValue(path: root.path("lineItems"), line: root.object.line, value: "[]", expected: "at least one line item")
        }
        let pending = state == .pending || state == .pendingPurchaseCanceled
        let startTime = try root.time("startTime")
        if !pending, startTime == nil { throw .missingField(path: root.path("startTime"), line: root.object.line) }
        let latestOrderId = try root.identifier("latestOrderId")
        var lineItems: [LineItem] = []
        for (value, path) in items {
            let item = try GooglePlayFields(value, path, what: "a line item object")
            let offer = try item.object("offerDetails", what: "an offer details object")
            let plan = try item.object("autoRenewingPlan", what: "an auto-renewing plan object")
            let line = LineItem(
                productId: try item.required("productId") { (key) throws(FormatError) in try item.identifier(key) },
                expiryTime: try item.time("expiryTime"), basePlanId: try offer?.identifier("basePlanId"),
                latestSuccessfulOrderId: try item.identifier("latestSuccessfulOrderId"), autoRenewEnabled: try plan?.bool("autoRenewEnabled"))
            if !pending {
                // A purchase past pending has paid at least once: each item has an order and an expiry.
                if line.expiryTime == nil { throw .missingField(path: item.path("expiryTime"), line: value.line) }
                if line.latestSuccessfulOrderId == nil, latestOrderId == nil {
                    throw .missingField(path: item.path("latestSuccessfulOrderId"), line: value.line)
                }
            }
            lineItems.append(line)
        }
        let accounts = try root.object("externalAccountIdentifiers", what: "an external account identifiers object")
        return SubscriptionPurchaseV2(
            startTime: startTime, subscriptionState: state, latestOrderId: latestOrderId,
            linkedPurchaseToken: try root.identifier("linkedPurchaseToken"),
            acknowledged: try root.string("acknowledgementState")?.utf8.elementsEqual("ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED".utf8) == true,
            obfuscatedExternalAccountId: try accounts?.identifier("obfuscatedExternalAccountId"),
            isTestPurchase: try root.object("testPurchase", what: "a test purchase object") != nil, lineItems: lineItems)
    }
}
