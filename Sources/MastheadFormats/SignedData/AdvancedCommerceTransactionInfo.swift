public import Masthead

/// What an Advanced Commerce API purchase was for (Apple's `advancedCommerceInfo` of a transaction).
///
/// An item whose `SKU` a catalog product names (its `"sku"`) is a purchase of that product
/// (``SignedDataDecoder``); the other fields are read so that a transaction carrying them decodes
/// whole. Enumerated values are kept as Apple's strings.
public struct AdvancedCommerceTransactionInfo: Hashable, Sendable {
    public var descriptors: AdvancedCommerceDescriptors?
    /// The estimated tax in milliunits.
    public var estimatedTax: Int64?
    public var items: [AdvancedCommerceTransactionItem]?
    /// The billing period in ISO 8601 (`P1M`).
    public var period: String?
    public var requestReferenceId: String?
    public var taxCode: String?
    /// The price without tax in milliunits.
    public var taxExclusivePrice: Int64?
    /// The tax rate as a decimal string (`"0.15"`).
    public var taxRate: String?

    /// Creates empty info.
    public init() {}
}

/// One item of an Advanced Commerce purchase.
public struct AdvancedCommerceTransactionItem: Hashable, Sendable {
    /// The item's SKU (Apple's `SKU`).
    public var sku: String?
    public var description: String?
    public var displayName: String?
    public var offer: AdvancedCommerceOffer?
    /// The price in milliunits.
    public var price: Int64?
    public var refunds: [AdvancedCommerceRefund]?
    public var revocationDate: Instant?

    /// Creates an empty item.
    public init() {}
}

/// A refund of an Advanced Commerce item.
public struct AdvancedCommerceRefund: Hashable, Sendable {
    /// The amount refunded in milliunits.
    public var refundAmount: Int64?
    public var refundDate: Instant?
    /// `UNINTENDED_PURCHASE`, `FULFILLMENT_ISSUE`, `UNSATISFIED_WITH_PURCHASE`, `LEGAL`, `OTHER`, …
    public var refundReason: String?
    /// `FULL`, `PRORATED` or `CUSTOM`.
    public var refundType: String?

    /// Creates an empty refund.
    public init() {}
}

/// A discount on an Advanced Commerce item.
public struct AdvancedCommerceOffer: Hashable, Sendable {
    /// The offer's period in ISO 8601 (`P1M`).
    public var period: String?
    public var periodCount: Int32?
    /// The discounted price in milliunits.
    public var price: Int64?
    /// `ACQUISITION`, `WIN_BACK` or `RETENTION`.
    public var reason: String?

    /// Creates an empty offer.
    public init() {}
}

/// The name and description of an Advanced Commerce product.
public struct AdvancedCommerceDescriptors: Hashable, Sendable {
    public var description: String?
    public var displayName: String?

    /// Creates empty descriptors.
    public init() {}
}
