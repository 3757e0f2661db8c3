public import Masthead
public import MastheadJSON

/// A signed transaction's payload and the engine's transactions made from it (R2.8).
public struct SignedTransaction: Hashable, Sendable {
    public var payload: JWSTransactionDecodedPayload
    /// The purchases it stands for: one, or for an Advanced Commerce purchase whose items name
    /// SKUs, one per SKU (``SignedDataDecoder``). Never empty; all share the transaction's
    /// original transaction id, dates and environment.
    public let transactions: [Transaction]

    /// The first of ``transactions``: the only one but for an Advanced Commerce purchase of several SKUs.
    public var transaction: Transaction { transactions[0] }
}

/// A signed renewal info's payload and the engine's renewal info made from it (R2.7, R2.8).
public struct SignedRenewal: Hashable, Sendable {
    public var payload: JWSRenewalInfoDecodedPayload
    public var renewal: RenewalInfo
}

/// Reads the payloads of signed transactions and renewal infos, once their signatures have been
/// verified, into the engine's values (R2.8).
///
/// A transaction needs `transactionId`, `productId`, `purchaseDate`, `signedDate` and
/// `environment`; renewal info needs `originalTransactionId`, `signedDate` and `environment`.
/// `revocationDate` is the cancellation (R5.1; with `isUpgraded`, an upgrade, R5.2), and
/// `revocationType` and `revocationPercentage` go with it (`REFUND_PRORATED` and `FAMILY_REVOKE`
/// end the transaction there, R5.3); an offer
/// with `offerDiscountType` `FREE_TRIAL` is a free trial, `offerType` 1 otherwise an
/// introductory offer, 2–4 another `OfferKind`. The offer and billing terms (`offerType`,
/// `offerIdentifier`, `offerPeriod`, `appTransactionId`, `billingPlanType`, `commitmentInfo`; for
/// renewal info also `appAccountToken`, `eligibleWinBackOfferIds`, `renewalBillingPlanType`) are
/// kept as sent in `PurchaseTerms` and `RenewalTerms`, nil when none is given. Only `Production` data grants in production:
/// `Sandbox`, `Xcode`, `LocalTesting` and any environment Apple adds are sandbox data (R14).
/// Given a catalog, a known product's `type` must be how the catalog's type is sold
/// (``AppStoreProductType/sold(as:)``) and an auto-renewable one needs `expiresDate`; an expiry
/// before the purchase is an error, as in receipts.
///
/// Given a catalog, a transaction whose `advancedCommerceInfo` has items naming SKUs is a purchase
/// per SKU, with the transaction's dates and state: of the product naming the SKU
/// (``Catalog/product(sku:)``), else of the transaction's `productId` when the catalog lists it,
/// else of the product `sku:SKU` (``unknownSKUPrefix``), which grants nothing and is reported
/// among the unknown products (R3). An item's own `revocationDate` (Apple's refund of that item)
/// cancels that purchase only; a SKU several items name is cancelled once all of them are. One item keeps the transaction's id; several are
/// `transactionId:SKU` each. Without a catalog the transaction is read by its `productId`.
public struct SignedDataDecoder: Sendable {
    /// Begins the product id of an Advanced Commerce item whose SKU the catalog does not know.
    public static let unknownSKUPrefix = "sku:"

    /// When given, known products' types and expiry dates are checked.
    public let catalog: Catalog?

    /// Creates a decoder; pass the catalog to check product types and expiry dates.
    public init(catalog: Catalog? = nil) { self.catalog = catalog }

    /// Parses and reads a signed transaction's payload.
    public func transaction(_ bytes: [UInt8]) throws(FormatError) -> SignedTransaction {
        try transaction(JSONValue.parsed(bytes))
    }

    /// Reads a signed transaction's payload from a parsed value found at `path`.
    public func transaction(_ value: JSONValue, path: String = "$") throws(FormatError) -> SignedTransaction {
        try value.withUnsafeValue { (node) throws(FormatError) in
            let payload = try JWSTransactionDecodedPayload.read(node, path: path)
            return SignedTransaction(payload: payload, transactions: try transactions(payload, node, path: path))
        }
    }

    /// Parses and reads a signed renewal info's payload.
    public func renewal(_ bytes: [UInt8]) throws(FormatError) -> SignedRenewal {
        try renewal(JSONValue.parsed(bytes))
    }

    /// Reads a signed renewal info's payload from a parsed value found at `path`.
    public func renewal(_ value: JSONValue, path: String = "$") throws(FormatError) -> SignedRenewal {
        try value.withUnsafeValue { (node) throws(FormatError) in
            let payload = try JWSRenewalInfoDecodedPayload.read(node, path: path)
            return SignedRenewal(payload: payload, renewal: try renewal(payload, node, path: path))
        }
    }

    /// The engine's transactions for `payload`, read from `object` (for the lines of errors): one,
    /// or one per SKU of an Advanced Commerce purchase.
    private func transactions(_ payload: JWSTransactionDecodedPayload, _ object: UnsafeJSONValue, path: String) throws(FormatError) -> [Transaction] {
        let required = RequiredMembers(object: object, path: path)
        /// Checks that the catalog's `product`, if any, is sold as the signed `type` says.
        func check(_ product: Product?) throws(FormatError) {
            guard let product else { return }
            let type = try required(payload.type, "type")
            if type != AppStoreProductType.sold(as: product.type) {
                let written = object.member("type")!
                throw FormatError.productTypeMismatch(
                    path: JSONPath.member(path, "type"), line: written.line, value: written.rendered, productId: product.productId, catalogType: product.type)
            }
            if product.type == .autoRenewable { _ = try required(payload.expiresDate, "expiresDate") }
        }
        let transactionId = try required(payload.transactionId, "transactionId")
        let productId = try required(payload.productId, "productId")
        let purchase = try required(payload.purchaseDate, "purchaseDate")
        let signedDate = try required(payload.signedDate, "signedDate")
        let environment = try required(payload.environment, "environment")
        let items = try advancedCommerceItems(payload, object, path: path)
        let whole = transaction(
            payload, transactionId: transactionId, productId: productId, purchase: purchase, signedDate: signedDate, environment: environment)
        guard let catalog, !items.isEmpty else {
            try check(catalog?.product(productId))
            try checkExpiry(payload, object, path: path, purchase: purchase)
            return [whole]
        }
        var transactions: [Transaction] = []
        for item in items {
            let product = catalog.product(sku: item.sku) ?? catalog.product(productId)
            try check(product)
            var bought = whole
            bought.transactionId = items.count == 1 ? transactionId : transactionId + ":" + item.sku
            bought.productId = product?.productId ?? SignedDataDecoder.unknownSKUPrefix + item.sku
            if let revoked = item.revocationDate, whole.cancellation.map({ revoked < $0 }) ?? true {
                bought.cancellation = revoked
                bought.revocationType = nil
                bought.revocationPercentage = nil
            }
            transactions.append(bought)
        }
        try checkExpiry(payload, object, path: path, purchase: purchase)
        return transactions
    }

    /// An expiry before the purchase is an error, as in receipts.
    private func checkExpiry(_ payload: JWSTransactionDecodedPayload, _ object: UnsafeJSONValue, path: String, purchase: Instant) throws(FormatError) {
        if let expires = payload.expiresDate, expires < purchase {
            let written = object.member("expiresDate")!
            throw FormatError.expiresBeforePurchase(
                path: JSONPath.member(path, "expiresDate"), line: written.line, value: written.rendered, expires: expires, purchase: purchase)
        }
    }

    /// The items of `payload`'s `advancedCommerceInfo` that name a SKU, one per SKU (its exact
    /// bytes) in the order first named, revoked when every item naming it is (at the latest of
    /// their revocations); a SKU holding a control character is an error, as other identifiers.
    private func advancedCommerceItems(
        _ payload: JWSTransactionDecodedPayload, _ object: UnsafeJSONValue, path: String
    ) throws(FormatError) -> [(sku: String, revocationDate: Instant?)] {
        guard let items = payload.advancedCommerceInfo?.items else { return [] }
        var named: [(sku: String, revocationDate: Instant?)] = []
        var seen: [ExactKey: Int] = [:]
        for (index, item) in items.enumerated() {
            guard let sku = item.sku, !sku.isEmpty else { continue }
            if sku.unicodeScalars.contains(where: IdentifierText.isControl) {
                let itemsPath = JSONPath.member(JSONPath.member(path, "advancedCommerceInfo"), "items")
                let elements = object.member("advancedCommerceInfo")?.member("items")?.elements
                let written = elements.flatMap { Array($0).dropFirst(index).first }?.member("SKU")
                throw FormatError.invalidValue(
                    path: JSONPath.member(JSONPath.element(itemsPath, index), "SKU"), line: written?.line ?? object.line, value: IdentifierText.escaped(sku),
                    expected: "an identifier without control characters")
            }
            // A SKU named by several items is revoked only once every one of them is, at the last.
            if let first = seen[ExactKey(sku)] {
                named[first].revocationDate = item.revocationDate.flatMap { revoked in named[first].revocationDate.map { max($0, revoked) } }
            } else {
                seen[ExactKey(sku)] = named.count
                named.append((sku, item.revocationDate))
            }
        }
        return named
    }

    /// The engine's transaction for `payload` as a whole, its required fields read already.
    private func transaction(
        _ payload: JWSTransactionDecodedPayload, transactionId: String, productId: String, purchase: Instant, signedDate: Instant,
        environment: AppStoreEnvironment
    ) -> Transaction {
        let isTrial = payload.offerDiscountType == .freeTrial
        return Transaction(
            transactionId: transactionId, originalTransactionId: payload.originalTransactionId ?? transactionId, productId: productId, purchase: purchase,
            expires: payload.expiresDate, cancellation: payload.revocationDate, isUpgraded: payload.isUpgraded ?? false, isTrial: isTrial,
            isIntroductoryOffer: !isTrial && payload.offerType == .introductoryOffer, offer: SignedDataDecoder.offerKind(payload.offerType),
            environment: SignedDataDecoder.environment(environment), signedDate: signedDate, revocationType: payload.revocationType,
            revocationPercentage: payload.revocationPercentage, terms: SignedDataDecoder.terms(payload))
    }

    /// The engine's renewal info for `payload`, read from `object` (for the lines of errors).
    private func renewal(_ payload: JWSRenewalInfoDecodedPayload, _ object: UnsafeJSONValue, path: String) throws(FormatError) -> RenewalInfo {
        let required = RequiredMembers(object: object, path: path)
        let originalTransactionId = try required(payload.originalTransactionId, "originalTransactionId")
        let signedDate = try required(payload.signedDate, "signedDate")
        let environment = try required(payload.environment, "environment")
        let autoRenewOn: Bool? =
            switch payload.autoRenewStatus {
            case .on?: true
            case .off?: false
            default: nil
            }
        return RenewalInfo(
            environment: SignedDataDecoder.environment(environment), originalTransactionId: originalTransactionId, productId: payload.productId,
            autoRenewProductId: payload.autoRenewProductId, autoRenewOn: autoRenewOn, isInBillingRetry: payload.isInBillingRetryPeriod ?? false,
            gracePeriodExpires: payload.gracePeriodExpiresDate, expirationIntent: payload.expirationIntent.map { String($0.rawValue) },
            evidence: signedDate, terms: SignedDataDecoder.terms(payload))
    }

    /// A signed transaction's offer and billing terms, as sent; nil when it gives none.
    static func terms(_ payload: JWSTransactionDecodedPayload) -> PurchaseTerms? {
        let commitment = payload.commitmentInfo.map { info in
            PurchaseCommitment(
                billingPeriodNumber: info.billingPeriodNumber, totalBillingPeriods: info.totalBillingPeriods, expires: info.commitmentExpiresDate,
                price: info.commitmentPrice)
        }
        let terms = PurchaseTerms(
            offerType: payload.offerType?.rawValue, offerIdentifier: payload.offerIdentifier, offerPeriod: payload.offerPeriod,
            appTransactionId: payload.appTransactionId, billingPlanType: payload.billingPlanType?.rawValue, commitment: commitment)
        return terms.isEmpty ? nil : terms
    }

    /// Signed renewal info's terms, as sent; nil when it gives none.
    static func terms(_ payload: JWSRenewalInfoDecodedPayload) -> RenewalTerms? {
        let commitment = payload.commitmentInfo.map { info in
            RenewalCommitment(
                autoRenewProductId: info.commitmentAutoRenewProductId, autoRenewStatus: info.commitmentAutoRenewStatus?.rawValue,
                renewalBillingPlanType: info.commitmentRenewalBillingPlanType?.rawValue, renewalDate: info.commitmentRenewalDate,
                renewalPrice: info.commitmentRenewalPrice)
        }
        let terms = RenewalTerms(
            appAccountToken: payload.appAccountToken, appTransactionId: payload.appTransactionId, offerType: payload.offerType?.rawValue,
            offerIdentifier: payload.offerIdentifier, offerPeriod: payload.offerPeriod, eligibleWinBackOfferIds: payload.eligibleWinBackOfferIds,
            renewalBillingPlanType: payload.renewalBillingPlanType?.rawValue, commitment: commitment)
        return terms.isEmpty ? nil : terms
    }

    /// Only `Production` grants in production; every other environment is sandbox data (R14).
    static func environment(_ environment: AppStoreEnvironment) -> Environment {
        environment == .production ? .production : .sandbox
    }

    /// The offer kind of an `offerType` other than an introductory offer.
    static func offerKind(_ offerType: OfferType?) -> OfferKind? {
        switch offerType {
        case nil, .introductoryOffer?: nil
        case .promotionalOffer?: .promotional
        case .offerCode?: .offerCode
        case .winBackOffer?: .winBack
        default: .other
        }
    }
}

/// The required members of a payload's object, found at `path`: `required(payload.x, "x")` is the
/// member's value, and a missing one an error naming its path and the object's line.
private struct RequiredMembers {
    let object: UnsafeJSONValue
    let path: String

    func callAsFunction<Value>(_ value: Value?, _ key: String) throws(FormatError) -> Value {
        guard let value else { throw FormatError.missingField(path: JSONPath.member(path, key), line: object.line) }
        return value
    }
}
