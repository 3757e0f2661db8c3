public import Masthead
public import MastheadCrypto
public import MastheadJSON

/// Input that cannot be used, with what a person needs to fix it: file, line, JSON path, value.
public enum FormatError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The text is not valid JSON.
    case invalidJSON(JSONError)
    /// A required field is absent (or empty, which counts as absent: R2.5).
    case missingField(path: String, line: Int)
    /// A field's value cannot be read; `expected` says what it should be.
    case invalidValue(path: String, line: Int, value: String, expected: String)
    /// A transaction whose expiry (the field at `path`, written `value`) lies before its purchase.
    case expiresBeforePurchase(path: String, line: Int, value: String, expires: Instant, purchase: Instant)
    /// A verifyReceipt response whose status is neither 0 nor 21006 (R2.4); nothing of it is used.
    case receiptRejected(status: Int, meaning: String)
    /// A catalog with problems, each with its JSON path.
    case invalidCatalog(file: String, problems: [CatalogProblem])
    /// Signed data for another app: the bundle id at `path` is not the configured one.
    case wrongBundleId(path: String, expected: String, found: String?)
    /// Signed production data for another app: the `appAppleId` at `path` is not the configured one.
    case wrongAppAppleId(path: String, expected: Int64, found: Int64?)
    /// Signed data from an environment the caller does not accept (R14: sandbox data never
    /// grants in production).
    case environmentNotAccepted(path: String, found: String?, accepted: [String])
    /// A signed transaction whose `type` (the field at `path`, written `value`) is not how the
    /// catalog's type of its product is sold.
    case productTypeMismatch(path: String, line: Int, value: String, productId: String, catalogType: ProductType)

    /// A signed token at `path` whose shape, chain or signature was refused; nothing of it is used.
    case signatureRefused(path: String, reason: SignatureError)

    public var description: String {
        switch self {
        case .invalidJSON(let error): error.description
        case .signatureRefused(let path, let reason): "\(path): signature refused: \(reason)"
        case .missingField(let path, let line): "missing field \(path) (line \(line))"
        case .invalidValue(let path, let line, let value, let expected):
            "invalid value \(value) at \(path) (line \(line)): expected \(expected)"
        case .expiresBeforePurchase(let path, let line, let value, let expires, let purchase):
            "\(path): \(value) (\(expires)) is before purchase_date \(purchase) (line \(line))"
        case .receiptRejected(let status, let meaning): "receipt rejected: status \(status): \(meaning)"
        case .invalidCatalog(let file, let problems):
            "invalid catalog \(file):\n" + problems.map { "  \($0.path): \($0.message)" }.joined(separator: "\n")
        case .wrongBundleId(let path, let expected, let found):
            "wrong app: \(path) is \(found.map { "\"\($0)\"" } ?? "missing"), expected \"\(expected)\""
        case .wrongAppAppleId(let path, let expected, let found):
            "wrong app: \(path) is \(found.map(String.init) ?? "missing"), expected \(expected)"
        case .environmentNotAccepted(let path, let found, let accepted):
            "environment not accepted: \(path) is \(found.map { "\"\($0)\"" } ?? "missing"), accepted: \(accepted.joined(separator: ", "))"
        case .productTypeMismatch(let path, let line, let value, let productId, let catalogType):
            "\(path): \(value) (line \(line)) does not fit the catalog, where \(productId) is \(catalogType.rawValue), "
                + "sold as \"\(AppStoreProductType.sold(as: catalogType).rawValue)\""
        }
    }
}

/// One problem found while loading a catalog.
public struct CatalogProblem: Hashable, Sendable {
    /// The JSON path of the offending value, such as `$.products[2].duration`.
    public var path: String
    public var message: String
}
