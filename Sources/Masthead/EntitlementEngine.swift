/// Answers "which issues can this user read, and why" from a catalog and a purchase history.
///
/// Pure and synchronous: the caller passes the as-of instant (R10) and the environment (R14).
public struct EntitlementEngine: Sendable {
    public let catalog: Catalog

    /// Creates an engine for a catalog.
    public init(catalog: Catalog) { self.catalog = catalog }

    /// Evaluates every publication the user has a transaction or a grant for.
    ///
    /// A publication is included when at least one transaction of `environment` has a product the
    /// catalog knows that grants it, or a grant names it (R17, grants count in every environment),
    /// whether or not that transaction or grant has started, was refunded or revoked.
    /// - Parameters:
    ///   - history: the user's transactions and renewal info.
    ///   - at: the as-of instant; only what had happened by then counts (R10).
    ///   - environment: production answers use production transactions only (R14).
    public func evaluate(_ history: PurchaseHistory, at: Instant, environment: Environment = .production) -> UserEntitlements {
        var unknown: [String] = []
        // Per publication met, its purchases: a user has few publications, so a list searched
        // in order beats a dictionary.
        var byPublication: [(publicationId: String, purchases: [ProductPurchase])] = []
        // A user buys few distinct products: each is looked up in the catalog once.
        var products: [(productId: String, product: Product?)] = []
        // Read in place: a transaction is copied only into the purchases that keep it.
        let transactions = history.transactions
        for position in transactions.indices where transactions[position].environment == environment {
            let productId = transactions[position].productId
            let product: Product?
            if let index = products.firstIndex(where: { $0.productId.sameBytes(as: productId) }) {
                product = products[index].product
            } else {
                product = catalog.product(productId)
                products.append((productId, product))
            }
            guard let product else {
                unknown.append(productId)
                continue
            }
            for publicationId in product.publications {
                let purchase = ProductPurchase(transaction: transactions[position], product: product)
                if let index = byPublication.firstIndex(where: { $0.publicationId.sameBytes(as: publicationId) }) {
                    byPublication[index].purchases.append(purchase)
                } else {
                    // Room for every transaction left, made once, rather than grown one by one.
                    var purchases: [ProductPurchase] = []
                    purchases.reserveCapacity(transactions.count - position)
                    purchases.append(purchase)
                    byPublication.append((publicationId, purchases))
                }
            }
        }
        let publications = catalog.publications.compactMap { publication -> PublicationEntitlement? in
            let purchases = byPublication.first(where: { $0.publicationId.sameBytes(as: publication.id) })?.purchases
            guard purchases != nil || history.grants.contains(where: { $0.names(publication.id) }) else { return nil }
            return PublicationEntitlement(
                publication: publication, transactions: purchases ?? [], history: history, catalog: catalog, at: at, environment: environment)
        }
        return UserEntitlements(
            at: at, environment: environment, publications: publications,
            unknownProductIds: Set(unknown.map(ExactKey.init)).sorted().map(\.text), unknownTransactionCount: unknown.count,
            unknownGrantIds: history.grants.isEmpty ? [] : history.grants.filter { !catalog.knows($0) }.map(\.grantId))
    }

    /// Evaluates one publication, even when the user has no transaction or grant for it (then
    /// only free issues are readable).
    public func evaluate(
        _ history: PurchaseHistory, publication: Publication, at: Instant, environment: Environment = .production
    ) -> PublicationEntitlement {
        var transactions: [ProductPurchase] = []
        for transaction in history.transactions where transaction.environment == environment {
            if let product = catalog.product(transaction.productId), product.grants(publication.id) {
                transactions.append(ProductPurchase(transaction: transaction, product: product))
            }
        }
        return PublicationEntitlement(
            publication: publication, transactions: transactions, history: history, catalog: catalog, at: at,
            environment: environment)
    }
}

/// A user's entitlements for every publication they have a transaction or a grant for, as of an
/// instant.
public struct UserEntitlements: Sendable {
    public var at: Instant
    public var environment: Environment
    /// In catalog order.
    public var publications: [PublicationEntitlement]
    /// Products of the user's transactions (in this environment) that the catalog does not know:
    /// they grant nothing (R3).
    public var unknownProductIds: [String]
    /// How many of the user's transactions (in this environment) have such a product.
    public var unknownTransactionCount: Int
    /// The user's grants that name a publication the catalog does not know, or an issue its
    /// publication does not have (R17), by grant id: they give nothing there.
    public var unknownGrantIds: [String] = []
}
