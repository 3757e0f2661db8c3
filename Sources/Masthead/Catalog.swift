/// The publications and the products that grant them (R3).
///
/// Build it with ``init(publications:products:)`` from values already checked (the catalog file
/// reader reports problems with their JSON paths); publication ids, product ids and the issues
/// products name are expected to be consistent.
public struct Catalog: Sendable {
    /// Publications in the order given.
    public let publications: [Publication]
    /// The products by id (the exact bytes of the id).
    public let products: [ExactKey: Product]
    let indexByPublicationId: [ExactKey: Int]
    let productsBySKU: [ExactKey: Product]
    let productsByGooglePlayId: [GooglePlayKey: Product]

    /// Creates a catalog.
    public init(publications: [Publication], products: [Product]) {
        self.publications = publications
        self.products = Dictionary(products.map { (ExactKey($0.productId), $0) }, uniquingKeysWith: { first, _ in first })
        indexByPublicationId = Dictionary(publications.enumerated().map { (ExactKey($1.id), $0) }, uniquingKeysWith: { first, _ in first })
        productsBySKU = Dictionary(
            products.compactMap { product in product.sku.map { (ExactKey($0), product) } }, uniquingKeysWith: { first, _ in first })
        productsByGooglePlayId = Dictionary(
            products.flatMap { product in GooglePlayKey.keys(of: product).map { ($0, product) } }, uniquingKeysWith: { first, _ in first })
    }

    /// The publication with this id (the same bytes).
    public func publication(_ id: String) -> Publication? {
        indexByPublicationId[ExactKey(id)].map { publications[$0] }
    }

    /// The product with this id (the same bytes), or nil when the catalog does not know it.
    public func product(_ productId: String) -> Product? { products[ExactKey(productId)] }

    /// The product whose ``Product/sku`` is this Advanced Commerce SKU (the same bytes), or nil
    /// when no product names it.
    public func product(sku: String) -> Product? { productsBySKU[ExactKey(sku)] }

    /// The product sold on Google Play as this Play product id and base plan (the same bytes;
    /// `basePlanId` nil for a one-time product), or nil when no product names them (R18).
    public func product(googlePlayProductId: String, basePlanId: String?) -> Product? {
        productsByGooglePlayId[GooglePlayKey(productId: googlePlayProductId, basePlanId: basePlanId)]
    }

    /// Whether every publication a grant names, and every issue an issue grant names, is in the
    /// catalog (R17).
    public func knows(_ grant: Grant) -> Bool {
        switch grant.scope {
        case .span(let publications, _, _): return publications.allSatisfy { publication($0) != nil }
        case .issues(let publicationId, let issueIds):
            guard let publication = publication(publicationId) else { return false }
            return issueIds.allSatisfy { publication.index(ofIssue: $0) != nil }
        }
    }

    /// Returns a copy in which `publication` replaces the one with its id (or is added).
    public func replacing(_ publication: Publication) -> Catalog {
        var list = publications
        if let index = indexByPublicationId[ExactKey(publication.id)] { list[index] = publication } else { list.append(publication) }
        return Catalog(publications: list, products: Array(products.values))
    }

    /// This catalog with issues published or corrected after it was written (through the
    /// service's API): each upserted into its publication; an issue of a publication the catalog
    /// does not hold is left out.
    public func publishing(_ issues: [(publicationId: String, issue: Issue)]) -> Catalog {
        var merged = self
        for (publicationId, issue) in issues {
            if let publication = merged.publication(publicationId) { merged = merged.replacing(publication.upserting(issue)) }
        }
        return merged
    }
}

/// A Google Play (product id, base plan) pair by its exact bytes: how the catalog finds a Play
/// purchase's product.
struct GooglePlayKey: Hashable {
    var productId: ExactKey
    var basePlanId: ExactKey?

    init(productId: String, basePlanId: String?) {
        self.productId = ExactKey(productId)
        self.basePlanId = basePlanId.map(ExactKey.init)
    }

    /// The pairs a product is sold by: one per base plan, or the product id alone without any.
    static func keys(of product: Product) -> [GooglePlayKey] {
        guard let ids = product.googlePlay else { return [] }
        if ids.basePlanIds.isEmpty { return [GooglePlayKey(productId: ids.productId, basePlanId: nil)] }
        return ids.basePlanIds.map { GooglePlayKey(productId: ids.productId, basePlanId: $0) }
    }
}
