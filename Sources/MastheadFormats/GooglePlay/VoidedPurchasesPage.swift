public import Masthead
import MastheadJSON

/// One page of the Voided Purchases API (`purchases.voidedpurchases.list`).
public struct VoidedPurchasesPage: Hashable, Sendable {
    public var voidedPurchases: [VoidedPurchase]
    /// `tokenPagination.nextPageToken`: nil on the last page.
    public var nextPageToken: String?

    /// Creates a page.
    public init(voidedPurchases: [VoidedPurchase], nextPageToken: String? = nil) {
        self.voidedPurchases = voidedPurchases
        self.nextPageToken = nextPageToken
    }

    /// Reads a page: each voided purchase needs `purchaseToken`, `orderId` and
    /// `voidedTimeMillis`; an empty page may omit `voidedPurchases`.
    /// - Throws: ``FormatError`` naming the JSON path of what is missing or wrong.
    public static func decode(_ bytes: [UInt8]) throws(FormatError) -> VoidedPurchasesPage {
        let root = try GooglePlayFields(try JSONValue.parsed(bytes), "$", what: "a voided purchases list object")
        var purchases: [VoidedPurchase] = []
        for (value, path) in try root.array("voidedPurchases") ?? [] {
            let item = try GooglePlayFields(value, path, what: "a voided purchase object")
            purchases.append(
                VoidedPurchase(
                    purchaseToken: try item.required("purchaseToken") { (key) throws(FormatError) in try item.identifier(key) },
                    orderId: try item.required("orderId") { (key) throws(FormatError) in try item.identifier(key) },
                    voidedTime: try item.required("voidedTimeMillis") { (key) throws(FormatError) in try item.milliseconds(key) },
                    voidedReason: try item.int("voidedReason"), voidedSource: try item.int("voidedSource"), refundType: try item.int("refundType")))
        }
        let pagination = try root.object("tokenPagination", what: "a token pagination object")
        return VoidedPurchasesPage(voidedPurchases: purchases, nextPageToken: try pagination?.identifier("nextPageToken"))
    }
}

/// An order Google voided: refunded, charged back or revoked.
public struct VoidedPurchase: Hashable, Sendable {
    public var purchaseToken: String
    public var orderId: String
    /// When it was voided: the refund's instant (R10).
    public var voidedTime: Instant
    /// Why (Google's numbers: 0 other, 1 remorse, 2 not received, 3 defective, 4 accidental
    /// purchase, 5 fraud, 6 friendly fraud, 7 chargeback, 8 unacknowledged purchase).
    public var voidedReason: Int64?
    /// Who (0 user, 1 developer, 2 Google).
    public var voidedSource: Int64?
    /// 1 a full refund, 2 a partial (quantity-based) one; absent means full.
    public var refundType: Int64?

    /// Creates a voided purchase.
    public init(purchaseToken: String, orderId: String, voidedTime: Instant, voidedReason: Int64? = nil, voidedSource: Int64? = nil, refundType: Int64? = nil) {
        self.purchaseToken = purchaseToken
        self.orderId = orderId
        self.voidedTime = voidedTime
        self.voidedReason = voidedReason
        self.voidedSource = voidedSource
        self.refundType = refundType
    }

    /// Whether the refund is partial (`refundType` 2), which ends the order at ``voidedTime``
    /// and keeps what it paid for before (R5.3); otherwise a full refund (R5.1).
    public var isPartial: Bool { refundType == 2 }
}
