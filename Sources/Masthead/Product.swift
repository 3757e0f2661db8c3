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
///
/// A value type whose fields live in one shared, immutable box: a user's transactions each carry
/// their product, and copying one costs a single reference count.
public struct Product: Hashable, Sendable {
    private let box: Box

    public var productId: String { box.fields.productId }
    public var type: ProductType { box.fields.type }
    /// The publications it grants; for an `issue` product, the issue's publication.
    public var publications: [String] { box.fields.publications }
    /// The access style of a subscription product (`archive` for `issue` products, where it is unused).
    public var access: AccessStyle { box.fields.access }
    /// For streaming products: only the latest `window` issues are readable (R12); nil for all.
    public var window: Int? { box.fields.window }
    /// For `nonRenewing` products: how long one purchase lasts.
    public var duration: CalendarDuration? { box.fields.duration }
    /// For `issue` products: the issue id.
    public var issueId: String? { box.fields.issueId }
    /// The SKU an Advanced Commerce API purchase names it by (an item's `SKU`), if it is sold that
    /// way too; unique in a catalog.
    public var sku: String? { box.fields.sku }
    /// The Google Play ids it is sold by, if it is sold on Google Play too (R18); a Play
    /// (product id, base plan) buys one catalog product.
    public var googlePlay: GooglePlayProductIds? { box.fields.googlePlay }

    /// Whether it grants the publication with this id (the same bytes).
    public func grants(_ publicationId: String) -> Bool { publications.contains { $0.sameBytes(as: publicationId) } }

    /// A subscription product (auto-renewable, non-renewing or free).
    public init(
        productId: String, type: ProductType, publications: [String], access: AccessStyle,
        window: Int? = nil, duration: CalendarDuration? = nil, sku: String? = nil, googlePlay: GooglePlayProductIds? = nil
    ) {
        box = Box(
            Fields(
                productId: productId, type: type, publications: publications, access: access, window: window, duration: duration, issueId: nil,
                sku: sku, googlePlay: googlePlay))
    }

    /// A single-issue product.
    public init(productId: String, publication: String, issue: String, sku: String? = nil, googlePlay: GooglePlayProductIds? = nil) {
        box = Box(
            Fields(
                productId: productId, type: .issue, publications: [publication], access: .archive, window: nil, duration: nil, issueId: issue,
                sku: sku, googlePlay: googlePlay))
    }

    public static func == (lhs: Product, rhs: Product) -> Bool { lhs.box === rhs.box || lhs.box.fields == rhs.box.fields }

    public func hash(into hasher: inout Hasher) { hasher.combine(box.fields) }

    private struct Fields: Hashable, Sendable {
        var productId: String
        var type: ProductType
        var publications: [String]
        var access: AccessStyle
        var window: Int?
        var duration: CalendarDuration?
        var issueId: String?
        var sku: String?
        var googlePlay: GooglePlayProductIds?
    }

    private final class Box: Sendable {
        let fields: Fields
        init(_ fields: Fields) { self.fields = fields }
    }
}
