import Masthead
import MastheadFormats

/// The signed data target: one input read as each signed shape the service accepts once a token
/// is verified, then the app checks, and the entitlement rules over what was read (R2.8).
enum SignedDataFuzzing {
    static let decoder = SignedDataDecoder(catalog: FormatsFuzzing.catalog)
    static let identity = AppIdentity(bundleId: "com.example", appAppleId: 1234, environments: [.production, .sandbox])

    static func run(_ bytes: [UInt8]) {
        do { _ = try SignedDataDocument.read(bytes) } catch { _ = error.description }
        do {
            let notification = try ResponseBodyV2DecodedPayload(decoding: bytes)
            try identity.check(notification)
        } catch {
            _ = error.description
        }
        do {
            let app = try JWSAppTransactionDecodedPayload(decoding: bytes)
            try identity.check(app)
        } catch {
            _ = error.description
        }
        do {
            let signed = try decoder.transaction(bytes)
            try identity.check(signed.payload)
            // Beside an unsigned copy that cancels it, and a copy signed later without the
            // cancellation: the merge must not depend on the order (R2.8).
            var unsigned = signed.transaction
            unsigned.signedDate = nil
            unsigned.cancellation = signed.transaction.purchase
            var later = signed.transaction
            later.signedDate = signed.transaction.signedDate.map { $0.adding(milliseconds: 1) }
            later.cancellation = nil
            let copies = [signed.transaction, unsigned, later]
            let history = PurchaseHistory(transactions: copies)
            precondition(history == PurchaseHistory(transactions: copies.reversed()), "copies merge differently in another order")
            FormatsFuzzing.evaluate(history, environment: signed.transaction.environment)
        } catch {
            _ = error.description
        }
        do {
            let signed = try decoder.renewal(bytes)
            try identity.check(signed.payload)
            let transaction = Transaction(
                transactionId: "fuzz", originalTransactionId: signed.renewal.originalTransactionId, productId: signed.renewal.productId ?? "fuzz",
                purchase: Instant(milliseconds: 1_580_000_000_000), expires: Instant(milliseconds: 1_582_000_000_000),
                environment: signed.renewal.environment)
            FormatsFuzzing.evaluate(PurchaseHistory(transactions: [transaction], renewals: [signed.renewal]), environment: signed.renewal.environment)
        } catch {
            _ = error.description
        }
    }
}
