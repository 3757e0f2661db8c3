/// What an Advanced Commerce API subscription renews with (Apple's `advancedCommerceInfo` of
/// renewal info).
///
/// Read so that renewal info carrying it decodes whole; Masthead grants nothing through it.
public struct AdvancedCommerceRenewalInfo: Hashable, Sendable {
    public var consistencyToken: String?
    public var descriptors: AdvancedCommerceDescriptors?
    public var items: [AdvancedCommerceRenewalItem]?
    /// The billing period in ISO 8601 (`P1M`).
    public var period: String?
    public var requestReferenceId: String?
    public var taxCode: String?

    /// Creates empty info.
    public init() {}
}

/// One item an Advanced Commerce subscription renews with.
public struct AdvancedCommerceRenewalItem: Hashable, Sendable {
    /// The item's SKU (Apple's `SKU`).
    public var sku: String?
    public var description: String?
    public var displayName: String?
    public var offer: AdvancedCommerceOffer?
    /// The price in milliunits.
    public var price: Int64?
    public var priceIncreaseInfo: AdvancedCommercePriceIncreaseInfo?

    /// Creates an empty item.
    public init() {}
}

/// A price increase of an Advanced Commerce item.
public struct AdvancedCommercePriceIncreaseInfo: Hashable, Sendable {
    public var dependentSKUs: [String]?
    /// The new price in milliunits.
    public var price: Int64?
    /// `SCHEDULED`, `PENDING` or `ACCEPTED`.
    public var status: String?

    /// Creates empty info.
    public init() {}
}
