/// What kind of App Store product a product id is (R3).
public enum ProductType: String, Hashable, Sendable, CaseIterable {
    /// An auto-renewable subscription: intervals come from the receipt's dates (R4).
    case autoRenewable
    /// A non-renewing subscription of a fixed ``CalendarDuration``, stacked (R6).
    case nonRenewing
    /// A free subscription that never expires (R7).
    case free
    /// One issue bought on its own (R13).
    case issue
}

/// How a subscription gives access: keep what was published (archive, R11) or read while active
/// (streaming, R12).
public enum AccessStyle: String, Hashable, Sendable, CaseIterable, Comparable {
    case archive
    case streaming

    public static func < (lhs: AccessStyle, rhs: AccessStyle) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// An App Store product and what it grants, as the catalog says (R3).
public struct Product: Hashable, Sendable {
    public let productId: String
    public let type: ProductType
    /// The publications it grants; for an `issue` product, the issue's publication.
    public let publications: [String]
    /// The access style of a subscription product (`archive` for `issue` products, where it is unused).
    public let access: AccessStyle
    /// For streaming products: only the latest `window` issues are readable (R12); nil for all.
    public let window: Int?
    /// For `nonRenewing` products: how long one purchase lasts.
    public let duration: CalendarDuration?
    /// For `issue` products: the issue id.
    public let issueId: String?

    /// A subscription product (auto-renewable, non-renewing or free).
    public init(
        productId: String, type: ProductType, publications: [String], access: AccessStyle,
        window: Int? = nil, duration: CalendarDuration? = nil
    ) {
        self.productId = productId
        self.type = type
        self.publications = publications
        self.access = access
        self.window = window
        self.duration = duration
        issueId = nil
    }

    /// A single-issue product.
    public init(productId: String, publication: String, issue: String) {
        self.productId = productId
        type = .issue
        publications = [publication]
        access = .archive
        window = nil
        duration = nil
        issueId = issue
    }
}
