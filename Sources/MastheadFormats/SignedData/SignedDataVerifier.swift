public import Masthead
public import MastheadCrypto
package import MastheadJSON

/// Apple's signed data taken in as the engine's values, in the order Apple's library checks it:
/// the token's chain and signature (``MastheadCrypto/JWSVerifier``), then the app it is for
/// (``AppIdentity``), then its payload (``SignedDataDecoder``, R2.8).
///
/// Every refusal is a ``FormatError`` naming the token's JSON path; nothing of a refused token is
/// used. A notification's own signature and app are checked, then those of the transaction and
/// renewal info it carries.
public struct SignedDataVerifier: Sendable {
    /// How tokens are trusted.
    public enum Trust: Sendable {
        /// Every token's chain and signature are verified.
        case verifySignatures(JWSVerifier)
        /// Tokens are checked for shape only: for data the publisher's own store verified when it
        /// took it in (`masthead audit --trust-verified`).
        case trustedAlready
    }

    /// How tokens are trusted.
    public let trust: Trust
    /// The app the data must be for, and the environments accepted.
    public let app: AppIdentity
    /// Reads verified payloads into the engine's values.
    public let decoder: SignedDataDecoder
    /// The current instant, the caller's clock: a token whose payload has no `signedDate` has its
    /// chain judged at it.
    public let now: @Sendable () -> Instant

    /// Creates a verifier of signed data for `app`.
    /// - Parameters:
    ///   - trust: how tokens are trusted.
    ///   - app: the bundle id (and App Apple ID) the data must carry, and the accepted environments.
    ///   - catalog: when given, product types and expiry dates are checked against it.
    ///   - now: the caller's clock, asked only for a token whose payload has no `signedDate`: its
    ///     chain is judged at that instant (`SystemClock.now` for the command line, the service's
    ///     own clock in the service).
    public init(trust: Trust, app: AppIdentity, catalog: Catalog? = nil, now: @escaping @Sendable () -> Instant) {
        self.trust = trust
        self.app = app
        decoder = SignedDataDecoder(catalog: catalog)
        self.now = now
    }

    /// Verifies and reads a signed transaction (`Transaction.jwsRepresentation`) found at `path`.
    public func transaction(_ token: String, path: String) throws(FormatError) -> SignedTransaction {
        try SignedDataVerifier.withBytes(of: token) { (bytes) throws(FormatError) in try transaction(bytes: bytes, path: path) }
    }

    /// Verifies and reads the signed transaction whose UTF-8 bytes `token` points at.
    private func transaction(bytes token: UnsafeBufferPointer<UInt8>, path: String) throws(FormatError) -> SignedTransaction {
        let payload = try payload(of: token, path: path)
        let signed = try decoder.transaction(payload, path: path)
        try app.check(signed.payload, path: path)
        return signed
    }

    /// Verifies and reads a signed renewal info found at `path`.
    public func renewal(_ token: String, path: String) throws(FormatError) -> SignedRenewal {
        try SignedDataVerifier.withBytes(of: token) { (bytes) throws(FormatError) in try renewal(bytes: bytes, path: path) }
    }

    /// Verifies and reads the signed renewal info whose UTF-8 bytes `token` points at.
    private func renewal(bytes token: UnsafeBufferPointer<UInt8>, path: String) throws(FormatError) -> SignedRenewal {
        let payload = try payload(of: token, path: path)
        let signed = try decoder.renewal(payload, path: path)
        try app.check(signed.payload, path: path)
        return signed
    }

    /// Verifies and reads a signed app transaction (Get App Transaction Info's
    /// `signedAppTransactionInfo`) found at `path`: its chain and signature, then its app
    /// (bundle id, App Apple ID, environment). Its payload has no `signedDate`, so its chain is
    /// judged at ``now``.
    public func appTransaction(_ token: String, path: String) throws(FormatError) -> JWSAppTransactionDecodedPayload {
        let object = try SignedDataVerifier.withBytes(of: token) { (bytes) throws(FormatError) in try self.payload(of: bytes, path: path) }
        let payload = try JWSAppTransactionDecodedPayload(object, path: path)
        try app.check(payload, path: path)
        return payload
    }

    /// Verifies and reads a version 2 notification's `signedPayload` found at `path`, and the
    /// signed transaction and renewal info its `data` carries.
    public func notification(_ signedPayload: String, path: String) throws(FormatError) -> SignedNotification {
        let object = try SignedDataVerifier.withBytes(of: signedPayload) { (bytes) throws(FormatError) in try self.payload(of: bytes, path: path) }
        let payload = try ResponseBodyV2DecodedPayload(object, path: path)
        try app.check(payload, path: path)
        let data = JSONPath.member(path, "data")
        let transaction = try payload.data?.signedTransactionInfo.map { (token) throws(FormatError) in
            try self.transaction(token, path: JSONPath.member(data, "signedTransactionInfo"))
        }
        let renewal = try payload.data?.signedRenewalInfo.map { (token) throws(FormatError) in
            try self.renewal(token, path: JSONPath.member(data, "signedRenewalInfo"))
        }
        return SignedNotification(payload: payload, transaction: transaction, renewal: renewal)
    }

    /// Verifies and reads every token of a signed-transactions document found at `path`
    /// (`{"signedTransactions": […], "signedRenewalInfos": […]}`) into one history; one refused
    /// token refuses the whole document.
    public func history(signedTransactions: [String], signedRenewalInfos: [String], path: String) throws(FormatError) -> PurchaseHistory {
        var transactions: [Transaction] = []
        transactions.reserveCapacity(signedTransactions.count)
        for (index, token) in signedTransactions.enumerated() {
            transactions += try transaction(token, path: JSONPath.element(JSONPath.member(path, "signedTransactions"), index)).transactions
        }
        var renewals: [RenewalInfo] = []
        for (index, token) in signedRenewalInfos.enumerated() {
            renewals.append(try renewal(token, path: JSONPath.element(JSONPath.member(path, "signedRenewalInfos"), index)).renewal)
        }
        return PurchaseHistory(transactions: transactions, renewals: renewals)
    }

    /// Verifies and reads every token of a signed-transactions document read in place
    /// (``SignedDataDocument/readInPlace(_:path:)``) at `path`, each from the bytes of its line
    /// where they lie (copied only for a token written with escapes); as
    /// ``history(signedTransactions:signedRenewalInfos:path:)``, one refused token refuses the whole document.
    package func history(signedTransactions: UnsafeJSONValue?, signedRenewalInfos: UnsafeJSONValue?, path: String) throws(FormatError) -> PurchaseHistory {
        var transactions: [Transaction] = []
        if let signedTransactions {
            let array = JSONPath.member(path, "signedTransactions")
            for (index, token) in signedTransactions.elements.enumerated() {
                let at = JSONPath.element(array, index)
                transactions += try SignedDataVerifier.withBytes(of: token) { (bytes) throws(FormatError) in try transaction(bytes: bytes, path: at) }.transactions
            }
        }
        var renewals: [RenewalInfo] = []
        if let signedRenewalInfos {
            let array = JSONPath.member(path, "signedRenewalInfos")
            for (index, token) in signedRenewalInfos.elements.enumerated() {
                let at = JSONPath.element(array, index)
                renewals.append(try SignedDataVerifier.withBytes(of: token) { (bytes) throws(FormatError) in try renewal(bytes: bytes, path: at) }.renewal)
            }
        }
        return PurchaseHistory(transactions: transactions, renewals: renewals)
    }

    /// The payload of the token whose UTF-8 bytes `token` points at, parsed, once its chain and
    /// signature are trusted.
    private func payload(of token: UnsafeBufferPointer<UInt8>, path: String) throws(FormatError) -> JSONValue {
        do {
            switch trust {
            case .verifySignatures(let verifier): return try verifier.verify(bytes: token, now: { now().milliseconds }).payloadObject
            case .trustedAlready: return try JWSVerifier.unverifiedPayload(bytes: token)
            }
        } catch {
            throw FormatError.signatureRefused(path: path, reason: error)
        }
    }

    /// Calls `body` with the UTF-8 bytes of `token`, read in place.
    private static func withBytes<R>(of token: String, _ body: (UnsafeBufferPointer<UInt8>) throws(FormatError) -> R) throws(FormatError) -> R {
        var token = token
        return try token.withUTF8 { bytes in Result { () throws(FormatError) in try body(bytes) } }.get()
    }

    /// Calls `body` with the UTF-8 bytes of the string `token` (a token ``SignedDataDocument``
    /// checked), read in place unless it is written with escapes.
    private static func withBytes<R>(of token: UnsafeJSONValue, _ body: (UnsafeBufferPointer<UInt8>) throws(FormatError) -> R) throws(FormatError) -> R {
        try token.withStringBytes { bytes in Result { () throws(FormatError) in try body(bytes) } }!.get()
    }
}

/// A version 2 notification whose signatures verified: its payload, and the transaction and
/// renewal info it carries.
public struct SignedNotification: Hashable, Sendable {
    public var payload: ResponseBodyV2DecodedPayload
    public var transaction: SignedTransaction?
    public var renewal: SignedRenewal?

    /// The transaction and renewal info as a history to merge (R2.8).
    public var history: PurchaseHistory {
        PurchaseHistory(transactions: transaction?.transactions ?? [], renewals: renewal.map { [$0.renewal] } ?? [])
    }
}
