public import Masthead
import MastheadJSON

/// A read of a one-time product's purchase token (`purchases.products.get`, Google's
/// `ProductPurchase`): the fields R18 uses. Members Google adds are ignored.
public struct GooglePlayProductPurchase: Hashable, Sendable {
    /// When the product was bought.
    public var purchaseTime: Instant?
    /// `purchaseState`: purchased, cancelled or pending.
    public var purchaseState: GooglePlaySubscriptionState
    public var orderId: String?
    /// `acknowledgementState` is 1.
    public var acknowledged: Bool
    public var obfuscatedExternalAccountId: String?
    /// `purchaseType`: absent for a purchase paid for, 0 a license tester's (R14: sandbox), 1 a
    /// promo code, 2 rewarded.
    public var purchaseType: Int64?
    /// How many were bought (1 when absent).
    public var quantity: Int64

    /// Creates a read.
    public init(
        purchaseTime: Instant?, purchaseState: GooglePlaySubscriptionState, orderId: String?, acknowledged: Bool = false,
        obfuscatedExternalAccountId: String? = nil, purchaseType: Int64? = nil, quantity: Int64 = 1
    ) {
        self.purchaseTime = purchaseTime
        self.purchaseState = purchaseState
        self.orderId = orderId
        self.acknowledged = acknowledged
        self.obfuscatedExternalAccountId = obfuscatedExternalAccountId
        self.purchaseType = purchaseType
        self.quantity = quantity
    }

    /// Whether a license tester made it (`purchaseType` 0): sandbox data (R14).
    public var isTestPurchase: Bool { purchaseType == 0 }

    /// Reads a `ProductPurchase` resource: `purchaseState` (0, 1 or 2) is required, and
    /// `purchaseTimeMillis` and `orderId` unless it is pending; `purchaseTimeMillis` is a
    /// string of digits; `quantity` a positive whole number.
    /// - Throws: ``FormatError`` naming the JSON path of what is missing or wrong.
    public static func decode(_ bytes: [UInt8]) throws(FormatError) -> GooglePlayProductPurchase {
        let root = try GooglePlayFields(try JSONValue.parsed(bytes), "$", what: "a ProductPurchase object")
        let stateNumber = try root.required("purchaseState") { (key) throws(FormatError) in try root.int(key) }
        guard let state = GooglePlaySubscriptionState(purchaseState: stateNumber) else {
            throw root.invalid("purchaseState", root.value("purchaseState")!, "0 (purchased), 1 (cancelled) or 2 (pending)")
        }
        let pending = state == .oneTimePending
        let purchaseTime = try root.milliseconds("purchaseTimeMillis")
        let orderId = try root.identifier("orderId")
        if !pending {
            if purchaseTime == nil { throw .missingField(path: root.path("purchaseTimeMillis"), line: root.object.line) }
            if orderId == nil { throw .missingField(path: root.path("orderId"), line: root.object.line) }
        }
        let quantity = try root.int("quantity") ?? 1
        guard quantity > 0 else { throw root.invalid("quantity", root.value("quantity")!, "a positive whole number") }
        return GooglePlayProductPurchase(
            purchaseTime: purchaseTime, purchaseState: state, orderId: orderId, acknowledged: try root.int("acknowledgementState") == 1,
            obfuscatedExternalAccountId: try root.identifier("obfuscatedExternalAccountId"), purchaseType: try root.int("purchaseType"),
            quantity: quantity)
    }
}
