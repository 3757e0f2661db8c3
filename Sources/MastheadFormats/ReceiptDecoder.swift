public import Masthead
public import MastheadJSON

/// A verifyReceipt response read into domain values (R2).
public struct Receipt: Hashable, Sendable {
    /// Apple's status: 0 or 21006 for a receipt that was read (others are rejected, R2.4).
    public var status: Int
    public var environment: Environment
    /// The transactions, de-duplicated by transaction id (R2.3), and the renewal info.
    public var history: PurchaseHistory
    /// Every transaction, de-duplicated by transaction id (R2.3), ordered by purchase.
    public var transactions: [Transaction] { history.transactions }
    /// The pending renewal info.
    public var renewals: [RenewalInfo] { history.renewals }
}

/// Reads verifyReceipt responses as Apple (and real projects' recordings) send them (R2).
///
/// Transactions come from `latest_receipt_info` (array or single object), `receipt.in_app`, and,
/// for iOS 6-style receipts, the `receipt` object itself and `latest_expired_receipt_info`. Only
/// the fields the rules use are checked; one that cannot be read makes the whole receipt an error
/// naming its JSON path, line and value (R2.5).
public struct ReceiptDecoder: Sendable {
    /// When given, an auto-renewable product's transaction must carry an expiry date.
    public let catalog: Catalog?

    /// The catalog's product ids, so that transactions share its strings.
    private let knownProductIds: KnownProductIds

    /// The names of the transaction fields read.
    private let names = TransactionNames()

    /// Creates a decoder; pass the catalog to check expiry dates of auto-renewable products.
    public init(catalog: Catalog? = nil) {
        self.catalog = catalog
        knownProductIds = KnownProductIds(catalog?.products.keys.sorted().map(\.text) ?? [])
    }

    /// Parses and reads a verifyReceipt response.
    public func decode(_ bytes: [UInt8]) throws(FormatError) -> Receipt {
        let root = try JSONValue.parsed(bytes)
        return try decode(root, path: "$")
    }

    /// Reads a verifyReceipt response from an already parsed value found at `path`.
    /// - Parameter requireStatus: when false (receipts inside notifications), a missing status counts as 0.
    public func decode(_ value: JSONValue, path: String, requireStatus: Bool = true) throws(FormatError) -> Receipt {
        try value.withUnsafeValue { (node) throws(FormatError) -> Receipt in try decode(node, path: path, requireStatus: requireStatus) }
    }

    /// Reads a verifyReceipt response through an unowned view of its value (no reference counting).
    package func decode(_ value: UnsafeJSONValue, path: String, requireStatus: Bool = true) throws(FormatError) -> Receipt {
        let body = try readBody(value, path: path, requireStatus: requireStatus)
        let renewals = RenewalReading.renewals(body.renewals, transactions: body.transactions, environment: body.environment)
        return Receipt(
            status: body.status, environment: body.environment, history: PurchaseHistory(transactions: body.transactions, renewals: renewals))
    }

    /// What one response body holds, before its renewal readings are merged and dated.
    struct Body {
        var status: Int
        var environment: Environment
        var transactions: [Transaction]
        var renewals: [RenewalReading]
    }

    /// Reads the status, environment, transactions and renewal readings of a response body.
    func readBody(_ value: UnsafeJSONValue, path: String, requireStatus: Bool) throws(FormatError) -> Body {
        let top = PayloadLocation(top: path)
        guard value.kind == .object else {
            throw FormatError.invalidValue(path: path, line: value.line, value: value.rendered, expected: "a verifyReceipt response object")
        }
        var status: UnsafeJSONValue?
        var environmentValue: UnsafeJSONValue?
        var receipt: UnsafeJSONValue?
        var latest: UnsafeJSONValue?
        var latestExpired: UnsafeJSONValue?
        var pending: UnsafeJSONValue?
        var topLevelRenewal = false
        for (key, member) in value.members {
            if key == "status" {
                status = member
            } else if key == "environment" {
                environmentValue = member
            } else if key == "receipt" {
                receipt = member
            } else if key == "latest_receipt_info" {
                latest = member
            } else if key == "latest_expired_receipt_info" {
                latestExpired = member
            } else if key == "pending_renewal_info" {
                pending = member
            } else if key == "auto_renew_status" || key == "is_in_billing_retry_period" || key == "expiration_intent"
                || key == "auto_renew_product_id"
            {
                topLevelRenewal = true
            }
        }
        let statusCode = requireStatus || (status.map { !$0.isAbsent } ?? false) ? try readStatus(status, top) : 0
        guard ReceiptStatus.isUsable(statusCode) else {
            throw FormatError.receiptRejected(status: statusCode, meaning: ReceiptStatus.meaning(statusCode))
        }
        let environment = try readEnvironment(environmentValue, top)
        var transactions: [Transaction] = []
        // Room for the transactions listed, made once (a transaction is large to move as the array
        // grows), up to a bound: a hostile list of a million empty values reserves no more.
        let listed = ReceiptDecoder.listedCount(latest) + ReceiptDecoder.listedCount(receipt?.member("in_app")) + ReceiptDecoder.listedCount(latestExpired)
        transactions.reserveCapacity(min(listed, ReceiptDecoder.reservedTransactionsLimit))
        var repeated = RepeatedIdentifiers()
        if let latest, !latest.isAbsent {
            try readTransactions(latest, top.member("latest_receipt_info"), environment, into: &transactions, repeated: &repeated)
        }
        if let receipt, !receipt.isAbsent {
            guard receipt.kind == .object else {
                throw FormatError.invalidValue(path: top.path("receipt"), line: receipt.line, value: receipt.rendered, expected: "an object")
            }
            let receiptLocation = top.member("receipt")
            if let inApp = receipt.member("in_app"), !inApp.isAbsent {
                try readTransactions(inApp, receiptLocation.member("in_app"), environment, into: &transactions, repeated: &repeated)
            }
            if receipt.member("transaction_id") != nil {
                transactions.append(try readTransaction(receipt, receiptLocation, environment, repeated: &repeated))
            }
        }
        if let latestExpired, !latestExpired.isAbsent {
            try readTransactions(latestExpired, top.member("latest_expired_receipt_info"), environment, into: &transactions, repeated: &repeated)
        }
        var renewals: [RenewalReading] = []
        if let pending, !pending.isAbsent {
            let pendingLocation = top.member("pending_renewal_info")
            if pending.kind == .array {
                for (index, entry) in pending.elements.enumerated() {
                    renewals.append(try readRenewal(entry, pendingLocation.element(index), source: .pendingRenewalInfo))
                }
            } else {
                renewals.append(try readRenewal(pending, pendingLocation, source: .pendingRenewalInfo))
            }
        }
        if topLevelRenewal {
            // iOS 6-style responses and version 1 notifications carry renewal fields at the top
            // level, for the body's latest subscription.
            renewals.append(try readRenewal(value, top, source: .topLevel))
        }
        return Body(status: statusCode, environment: environment, transactions: transactions, renewals: renewals)
    }

    /// At most this many transactions are reserved room for before they are read.
    private static let reservedTransactionsLimit = 256

    /// How many transactions a `latest_receipt_info`, `in_app` or `latest_expired_receipt_info`
    /// value lists: an array's elements, one for an object, none otherwise.
    private static func listedCount(_ value: UnsafeJSONValue?) -> Int {
        switch value?.kind {
        case .array: value?.count ?? 0
        case .object: 1
        default: 0
        }
    }

    private func readStatus(_ value: UnsafeJSONValue?, _ top: PayloadLocation) throws(FormatError) -> Int {
        guard let value, !value.isAbsent else { throw FormatError.missingField(path: top.path("status"), line: 1) }
        if let number = value.int64 ?? value.milliseconds, let status = Int(exactly: number) { return status }
        throw FormatError.invalidValue(path: top.path("status"), line: value.line, value: value.rendered, expected: "a numeric status code")
    }

    private func readEnvironment(_ value: UnsafeJSONValue?, _ top: PayloadLocation) throws(FormatError) -> Environment {
        guard let value, !value.isAbsent else { return .production }
        switch value.string?.lowercased() {
        case "production", "prod": return .production
        case "sandbox": return .sandbox
        default:
            throw FormatError.invalidValue(
                path: top.path("environment"), line: value.line, value: value.rendered, expected: "\"Production\" or \"Sandbox\"")
        }
    }

    private func readTransactions(
        _ value: UnsafeJSONValue, _ location: PayloadLocation, _ environment: Environment, into transactions: inout [Transaction],
        repeated: inout RepeatedIdentifiers
    ) throws(FormatError) {
        switch value.kind {
        case .array:
            for (index, element) in value.elements.enumerated() {
                transactions.append(try readTransaction(element, location.element(index), environment, repeated: &repeated))
            }
        case .object:
            transactions.append(try readTransaction(value, location, environment, repeated: &repeated))
        default:
            throw FormatError.invalidValue(path: location.objectPath, line: value.line, value: value.rendered, expected: "an array or object of transactions")
        }
    }

    /// Reads one transaction, visiting its members once; identifiers `repeated` remembers (from
    /// the transactions read before in the same response) are not read again.
    func readTransaction(
        _ object: UnsafeJSONValue, _ location: PayloadLocation, _ environment: Environment, repeated: inout RepeatedIdentifiers
    ) throws(FormatError) -> Transaction {
        guard object.kind == .object else {
            throw FormatError.invalidValue(path: location.objectPath, line: object.line, value: object.rendered, expected: "a transaction object")
        }
        var transactionId: UnsafeJSONValue?
        var originalId: UnsafeJSONValue?
        var productId: UnsafeJSONValue?
        var purchase: UnsafeJSONValue?
        var purchaseMs: UnsafeJSONValue?
        var expires: UnsafeJSONValue?
        var expiresMs: UnsafeJSONValue?
        var cancellation: UnsafeJSONValue?
        var cancellationMs: UnsafeJSONValue?
        var upgraded: UnsafeJSONValue?
        var trial: UnsafeJSONValue?
        var intro: UnsafeJSONValue?
        // Names are told apart by length first (one integer comparison rejects most keys), then
        // by their eight-byte words.
        for (key, value) in object.members {
            switch key.utf8Count {
            case 10: if key == names.productId { productId = value }
            case 11: if key == names.isUpgraded { upgraded = value }
            case 12: if key == names.expiresDate { expires = value }
            case 13: if key == names.purchaseDate { purchase = value }
            case 14: if key == names.transactionId { transactionId = value }
            case 15:
                if key == names.expiresDateMs {
                    expiresMs = value
                } else if key == names.isTrialPeriod {
                    trial = value
                }
            case 16: if key == names.purchaseDateMs { purchaseMs = value }
            case 17: if key == names.cancellationDate { cancellation = value }
            case 20: if key == names.cancellationDateMs { cancellationMs = value }
            case 23: if key == names.originalTransactionId { originalId = value }
            case 24: if key == names.isInIntroOfferPeriod { intro = value }
            default: break
            }
        }
        guard let transactionId, let id = try transactionId.identifier(location, "transaction_id") else {
            throw FormatError.missingField(path: location.path("transaction_id"), line: object.line)
        }
        guard let product = try productIdentifier(productId, location, repeated: &repeated) else {
            throw FormatError.missingField(path: location.path("product_id"), line: object.line)
        }
        guard let purchased = try appStoreDate(milliseconds: purchaseMs, text: purchase, location: location, key: "purchase_date") else {
            throw FormatError.missingField(path: location.path("purchase_date"), line: object.line)
        }
        let expiry = try appStoreDate(milliseconds: expiresMs, text: expires, location: location, key: "expires_date")
        if expiry == nil, catalog?.product(product)?.type == .autoRenewable {
            throw FormatError.missingField(path: location.path("expires_date"), line: object.line)
        }
        if let expiry, expiry < purchased {
            // Named by the field the expiry was read from: `_ms` when given (R2.1).
            let fromMilliseconds = expiresMs.map { !$0.isAbsent } ?? false
            let written = fromMilliseconds ? expiresMs! : expires!
            throw FormatError.expiresBeforePurchase(
                path: location.path(fromMilliseconds ? "expires_date_ms" : "expires_date"), line: written.line, value: written.rendered,
                expires: expiry, purchase: purchased)
        }
        return Transaction(
            transactionId: id,
            originalTransactionId: try originalIdentifier(originalId, location, transactionId: id, readFrom: transactionId, repeated: &repeated),
            productId: product,
            purchase: purchased,
            expires: expiry,
            cancellation: try appStoreDate(milliseconds: cancellationMs, text: cancellation, location: location, key: "cancellation_date"),
            isUpgraded: try upgraded?.flag(location, "is_upgraded") ?? false,
            isTrial: (try? trial?.flag(location, "is_trial_period")) ?? false,
            isIntroductoryOffer: (try? intro?.flag(location, "is_in_intro_offer_period")) ?? false,
            environment: environment)
    }

    /// A transaction's product id; one the catalog knows shares the catalog's string, one with
    /// the bytes of the last one read shares its string.
    private func productIdentifier(
        _ value: UnsafeJSONValue?, _ location: PayloadLocation, repeated: inout RepeatedIdentifiers
    ) throws(FormatError) -> String? {
        guard let value else { return nil }
        if let same = repeated.product?.text(ifSameAs: value) { return same }
        let product: String?
        if let known = value.withStringBytes({ knownProductIds.id(matching: $0) }) ?? nil {
            product = known
        } else {
            product = try value.identifier(location, "product_id")
        }
        if let product { repeated.product = RememberedString(product, readFrom: value) }
        return product
    }

    /// A transaction's original transaction id: one with the bytes of its own transaction id
    /// (`transactionId`, read from `idValue`), or of the last original id read, shares that string.
    private func originalIdentifier(
        _ value: UnsafeJSONValue?, _ location: PayloadLocation, transactionId: String, readFrom idValue: UnsafeJSONValue,
        repeated: inout RepeatedIdentifiers
    ) throws(FormatError) -> String? {
        guard let value else { return nil }
        if let idBytes = idValue.plainStringBytes, RememberedString.isPlainString(value, spelling: idBytes) { return transactionId }
        if let same = repeated.original?.text(ifSameAs: value) { return same }
        let original = try value.identifier(location, "original_transaction_id")
        if let original { repeated.original = RememberedString(original, readFrom: value) }
        return original
    }

    /// Reads one `pending_renewal_info` entry, or the top-level renewal fields of an iOS 6-style
    /// response or a version 1 notification (with `auto_renew_status_change_date`).
    func readRenewal(
        _ object: UnsafeJSONValue, _ location: PayloadLocation, source: RenewalReading.Source
    ) throws(FormatError) -> RenewalReading {
        guard object.kind == .object else {
            throw FormatError.invalidValue(path: location.objectPath, line: object.line, value: object.rendered, expected: "a renewal info object")
        }
        var reading = RenewalReading(source: source)
        var grace: UnsafeJSONValue?
        var graceMs: UnsafeJSONValue?
        var changed: UnsafeJSONValue?
        var changedMs: UnsafeJSONValue?
        for (key, value) in object.members {
            if key == "original_transaction_id" {
                reading.originalTransactionId = try value.identifier(location, "original_transaction_id")
            } else if key == "product_id" {
                reading.productId = try value.identifier(location, "product_id")
            } else if key == "auto_renew_product_id" {
                reading.autoRenewProductId = try value.identifier(location, "auto_renew_product_id")
            } else if key == "auto_renew_status" {
                reading.autoRenewOn = try value.flag(location, "auto_renew_status")
            } else if key == "is_in_billing_retry_period" {
                reading.isInBillingRetry = try value.flag(location, "is_in_billing_retry_period")
            } else if key == "expiration_intent" {
                reading.expirationIntent = value.looseText
            } else if key == "grace_period_expires_date_ms" {
                graceMs = value
            } else if key == "grace_period_expires_date" {
                grace = value
            } else if key == "auto_renew_status_change_date_ms" {
                changedMs = value
            } else if key == "auto_renew_status_change_date" {
                changed = value
            }
        }
        reading.gracePeriodExpires = try appStoreDate(milliseconds: graceMs, text: grace, location: location, key: "grace_period_expires_date")
        reading.changed = try appStoreDate(milliseconds: changedMs, text: changed, location: location, key: "auto_renew_status_change_date")
        return reading
    }
}

/// The transaction fields' names, prepared for word-wise comparison; the decoder holds them, so
/// that reading them takes no check that a global was initialized.
private struct TransactionNames: Sendable {
    let productId = JSONName("product_id")
    let isUpgraded = JSONName("is_upgraded")
    let expiresDate = JSONName("expires_date")
    let purchaseDate = JSONName("purchase_date")
    let transactionId = JSONName("transaction_id")
    let expiresDateMs = JSONName("expires_date_ms")
    let isTrialPeriod = JSONName("is_trial_period")
    let purchaseDateMs = JSONName("purchase_date_ms")
    let cancellationDate = JSONName("cancellation_date")
    let cancellationDateMs = JSONName("cancellation_date_ms")
    let originalTransactionId = JSONName("original_transaction_id")
    let isInIntroOfferPeriod = JSONName("is_in_intro_offer_period")
}
