public import Masthead
public import MastheadJSON

/// A signed transaction's payload and the engine's transaction made from it (R2.8).
public struct SignedTransaction: Hashable, Sendable {
    public var payload: JWSTransactionDecodedPayload
    public var transaction: Transaction
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
public struct SignedDataDecoder: Sendable {
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
            return SignedTransaction(payload: payload, transaction: try transaction(payload, node, path: path))
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


    /// The engine's transaction for `payload`, read from `object` (for the lines of errors).
    private func transaction(_ payload: JWSTransactionDecodedPayload, _ object: UnsafeJSONValue, path: String) throws(FormatError) -> Transaction {
        func required<Value>(_ value: Value?, _ key: String) throws(FormatError) -> Value {
            guard let value else { throw FormatError.missingField(path: JSONPath.member(path, key), line: object.line) }
            return value
        }
        let transactionId = try required(payload.transactionId, "transactionId")
        let productId = try required(payload.productId, "productId")
        let purchase = try required(payload.purchaseDate, "purchaseDate")
        let signedDate = try required(payload.signedDate, "signedDate")
        let environment = try required(payload.environment, "environment")
        if let product = catalog?.product(productId) {
            let type = try required(payload.type, "type")
            if type != AppStoreProductType.sold(as: product.type) {
                let written = object.member("type")!
                throw FormatError.productTypeMismatch(
                    path: JSONPath.member(path, "type"), line: written.line, value: written.rendered, productId: productId, catalogType: product.type)
            }
            if product.type == .autoRenewable { _ = try required(payload.expiresDate, "expiresDate") }
        }
        if let expires = payload.expiresDate, expires < purchase {
            let written = object.member("expiresDate")!
            throw FormatError.expiresBeforePurchase(
                path: JSONPath.member(path, "expiresDate"), line: written.line, value: written.rendered, expires: expires, purchase: purchase)
        }
        let isTrial = payload.offerDiscountType == .freeTrial
        return Transaction(
            transactionId: transactionId, originalTransactionId: payload.originalTransactionId, productId: productId, purchase: purchase,
            expires: payload.expiresDate, cancellation: payload.revocationDate, isUpgraded: payload.isUpgraded ?? false, isTrial: isTrial,
            isIntroductoryOffer: !isTrial && payload.offerType == .introductoryOffer, offer: SignedDataDecoder.offerKind(payload.offerType),
            environment: SignedDataDecoder.environment(environment), signedDate: signedDate, revocationType: payload.revocationType,
            revocationPercentage: payload.revocationPercentage, terms: SignedDataDecoder.terms(payload))
    }

    /// The engine's renewal info for `payload`, read from `object` (for the lines of errors).
    private func renewal(_ payload: JWSRenewalInfoDecodedPayload, _ object: UnsafeJSONValue, path: String) throws(FormatError) -> RenewalInfo {
        func required<Value>(_ value: Value?, _ key: String) throws(FormatError) -> Value {
            guard let value else { throw FormatError.missingField(path: JSONPath.member(path, key), line: object.line) }
            return value
        }
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
