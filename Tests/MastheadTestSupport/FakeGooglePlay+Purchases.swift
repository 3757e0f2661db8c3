import MastheadJSON

/// What the fake Google knows about purchases, and their JSON as the Play Developer API sends it.
extension FakeGooglePlay {
    /// A subscription purchase token's state, answered by `purchases.subscriptionsv2.get` as a
    /// `SubscriptionPurchaseV2`. Times are RFC 3339 (`2020-02-20T12:00:00Z`, as Google writes them).
    public struct Subscription: Sendable {
        /// Google's word, such as `SUBSCRIPTION_STATE_ACTIVE`.
        public var state: String
        public var startTime: String
        public var latestOrderId: String
        public var linkedPurchaseToken: String?
        public var acknowledged: Bool
        public var obfuscatedExternalAccountId: String?
        /// Whether it is a license tester's purchase (`testPurchase: {}`).
        public var testPurchase: Bool
        public var lineItems: [LineItem]

        /// Creates a subscription's state.
        public init(
            state: String, startTime: String, latestOrderId: String, linkedPurchaseToken: String? = nil, acknowledged: Bool = false,
            obfuscatedExternalAccountId: String? = nil, testPurchase: Bool = false, lineItems: [LineItem]
        ) {
            self.state = state
            self.startTime = startTime
            self.latestOrderId = latestOrderId
            self.linkedPurchaseToken = linkedPurchaseToken
            self.acknowledged = acknowledged
            self.obfuscatedExternalAccountId = obfuscatedExternalAccountId
            self.testPurchase = testPurchase
            self.lineItems = lineItems
        }

        /// The body of `purchases.subscriptionsv2.get`.
        public var json: [UInt8] {
            var writer = JSONWriter()
            writer.beginObject()
            writer.field("kind", "androidpublisher#subscriptionPurchaseV2")
            writer.field("regionCode", "GB")
            writer.field("startTime", startTime)
            writer.field("subscriptionState", state)
            writer.field("latestOrderId", latestOrderId)
            if let linkedPurchaseToken { writer.field("linkedPurchaseToken", linkedPurchaseToken) }
            writer.field("acknowledgementState", acknowledged ? "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED" : "ACKNOWLEDGEMENT_STATE_PENDING")
            if let obfuscatedExternalAccountId {
                writer.key("externalAccountIdentifiers")
                writer.beginObject()
                writer.field("obfuscatedExternalAccountId", obfuscatedExternalAccountId)
                writer.endObject()
            }
            if testPurchase {
                writer.key("testPurchase")
                writer.beginObject()
                writer.endObject()
            }
            writer.array("lineItems", lineItems) { writer, item in item.write(&writer) }
            writer.endObject()
            return writer.bytes
        }
    }

    /// One line item of a subscription: a product and base plan, its expiry and last paid order.
    public struct LineItem: Sendable {
        public var productId: String
        public var basePlanId: String
        public var expiryTime: String
        public var latestSuccessfulOrderId: String?
        public var autoRenewEnabled: Bool

        /// Creates a line item.
        public init(productId: String, basePlanId: String, expiryTime: String, latestSuccessfulOrderId: String? = nil, autoRenewEnabled: Bool = true) {
            self.productId = productId
            self.basePlanId = basePlanId
            self.expiryTime = expiryTime
            self.latestSuccessfulOrderId = latestSuccessfulOrderId
            self.autoRenewEnabled = autoRenewEnabled
        }

        func write(_ writer: inout JSONWriter) {
            writer.beginObject()
            writer.field("productId", productId)
            writer.field("expiryTime", expiryTime)
            if let latestSuccessfulOrderId { writer.field("latestSuccessfulOrderId", latestSuccessfulOrderId) }
            writer.key("autoRenewingPlan")
            writer.beginObject()
            writer.field("autoRenewEnabled", autoRenewEnabled)
            writer.endObject()
            writer.key("offerDetails")
            writer.beginObject()
            writer.field("basePlanId", basePlanId)
            writer.endObject()
            writer.endObject()
        }
    }

    /// A one-time product's purchase token, answered by `purchases.products.get` as a `ProductPurchase`.
    public struct Product: Sendable {
        public var productId: String
        public var purchaseTimeMillis: Int64
        /// 0 purchased, 1 canceled, 2 pending.
        public var purchaseState: Int
        public var orderId: String
        public var acknowledged: Bool
        public var obfuscatedExternalAccountId: String?
        /// 0 for a license tester's purchase; nil when not a test.
        public var purchaseType: Int?
        public var quantity: Int

        /// Creates a one-time purchase.
        public init(
            productId: String, purchaseTimeMillis: Int64, purchaseState: Int = 0, orderId: String, acknowledged: Bool = false,
            obfuscatedExternalAccountId: String? = nil, purchaseType: Int? = nil, quantity: Int = 1
        ) {
            self.productId = productId
            self.purchaseTimeMillis = purchaseTimeMillis
            self.purchaseState = purchaseState
            self.orderId = orderId
            self.acknowledged = acknowledged
            self.obfuscatedExternalAccountId = obfuscatedExternalAccountId
            self.purchaseType = purchaseType
            self.quantity = quantity
        }

        /// The body of `purchases.products.get` (Google writes its 64-bit numbers as strings).
        public var json: [UInt8] {
            var writer = JSONWriter()
            writer.beginObject()
            writer.field("kind", "androidpublisher#productPurchase")
            writer.field("purchaseTimeMillis", String(purchaseTimeMillis))
            writer.field("purchaseState", Int64(purchaseState))
            writer.field("consumptionState", Int64(0))
            writer.field("orderId", orderId)
            writer.field("acknowledgementState", Int64(acknowledged ? 1 : 0))
            if let obfuscatedExternalAccountId { writer.field("obfuscatedExternalAccountId", obfuscatedExternalAccountId) }
            if let purchaseType { writer.field("purchaseType", Int64(purchaseType)) }
            writer.field("quantity", Int64(quantity))
            writer.field("regionCode", "GB")
            writer.endObject()
            return writer.bytes
        }
    }

    /// A voided purchase, as the Voided Purchases API lists it.
    public struct VoidedPurchase: Sendable {
        public var purchaseToken: String
        public var orderId: String
        public var purchaseTimeMillis: Int64
        public var voidedTimeMillis: Int64
        /// 0 other, 1 remorse, 2 not received, 3 defective, 4 accidental purchase, 5 fraud, 6 friendly fraud, 7 chargeback.
        public var voidedReason: Int
        /// 0 user, 1 developer, 2 Google.
        public var voidedSource: Int
        /// 1 full refund, 2 quantity-based partial refund.
        public var refundType: Int

        /// Creates a voided purchase.
        public init(
            purchaseToken: String, orderId: String, purchaseTimeMillis: Int64, voidedTimeMillis: Int64, voidedReason: Int = 1, voidedSource: Int = 0,
            refundType: Int = 1
        ) {
            self.purchaseToken = purchaseToken
            self.orderId = orderId
            self.purchaseTimeMillis = purchaseTimeMillis
            self.voidedTimeMillis = voidedTimeMillis
            self.voidedReason = voidedReason
            self.voidedSource = voidedSource
            self.refundType = refundType
        }

        func write(_ writer: inout JSONWriter) {
            writer.beginObject()
            writer.field("kind", "androidpublisher#voidedPurchase")
            writer.field("purchaseToken", purchaseToken)
            writer.field("purchaseTimeMillis", String(purchaseTimeMillis))
            writer.field("voidedTimeMillis", String(voidedTimeMillis))
            writer.field("orderId", orderId)
            writer.field("voidedSource", Int64(voidedSource))
            writer.field("voidedReason", Int64(voidedReason))
            writer.field("refundType", Int64(refundType))
            writer.endObject()
        }
    }
}
