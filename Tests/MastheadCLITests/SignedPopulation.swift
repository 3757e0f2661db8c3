import Foundation
import Masthead
import MastheadCLI
import MastheadFormats
import MastheadTestSupport

/// A generated population as signed data: each line of a `masthead generate` receipts file with
/// its transactions and renewal info signed by the test chain, as a StoreKit 2 app holds them
/// (refunds as `revocationDate`, upgrades, trials and introductory offers, sandbox data).
enum SignedPopulation {
    static let bundleId = "com.example.magazine"

    /// Writes the receipts file `receipts`'s users, as signed lines, to `signed`.
    static func write(receipts: String, to signed: String) throws {
        let catalog = try CommonOptions.catalog(Tool.root.appendingPathComponent("Catalog/the-monthly").path)
        let decoder = ReceiptDecoder(catalog: catalog)
        var lines: [String] = []
        for line in try String(contentsOfFile: receipts, encoding: .utf8).split(separator: "\n") {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
            let receipt = try decoder.decode([UInt8](try JSONSerialization.data(withJSONObject: object["receipt"]!)))
            let transactions = try TestChain.sign(each: try receipt.transactions.map { try json(transaction($0, catalog: catalog)) })
            let renewals = try TestChain.sign(each: try receipt.renewals.compactMap(renewal).map(json))
            lines.append(SignedData.line(object["user_id"] as! String, transactions: transactions, renewals: renewals))
        }
        try Data(lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: signed))
    }

    /// The signed payload of `transaction`: signed when bought, or when refunded.
    static func transaction(_ transaction: Transaction, catalog: Catalog) -> [String: Any] {
        var payload: [String: Any] = [
            "transactionId": transaction.transactionId, "originalTransactionId": transaction.originalTransactionId,
            "productId": transaction.productId, "bundleId": bundleId, "purchaseDate": transaction.purchase.milliseconds,
            "inAppOwnershipType": "PURCHASED", "environment": environment(transaction.environment),
            "signedDate": (transaction.cancellation ?? transaction.purchase).milliseconds,
        ]
        payload["type"] = catalog.product(transaction.productId).map { AppStoreProductType.sold(as: $0.type).rawValue }
        payload["expiresDate"] = transaction.expires?.milliseconds
        payload["revocationDate"] = transaction.cancellation?.milliseconds
        if transaction.isUpgraded { payload["isUpgraded"] = true }
        if transaction.isTrial || transaction.isIntroductoryOffer {
            payload["offerType"] = 1
            payload["offerDiscountType"] = transaction.isTrial ? "FREE_TRIAL" : "PAY_AS_YOU_GO"
        }
        return payload
    }

    /// The signed payload of `renewal`, signed when it was last known; nil without its subscription.
    static func renewal(_ renewal: RenewalInfo) -> [String: Any]? {
        guard let original = renewal.originalTransactionId else { return nil }
        var payload: [String: Any] = [
            "originalTransactionId": original, "environment": environment(renewal.environment),
            "signedDate": (renewal.evidence ?? Instant(milliseconds: 1_577_836_800_000)).milliseconds,
        ]
        payload["productId"] = renewal.productId
        payload["autoRenewProductId"] = renewal.autoRenewProductId
        payload["autoRenewStatus"] = renewal.autoRenewOn.map { $0 ? 1 : 0 }
        if renewal.isInBillingRetry { payload["isInBillingRetryPeriod"] = true }
        payload["gracePeriodExpiresDate"] = renewal.gracePeriodExpires?.milliseconds
        payload["expirationIntent"] = renewal.expirationIntent.flatMap { Int($0) }
        return payload
    }

    static func environment(_ environment: Environment) -> String { environment == .production ? "Production" : "Sandbox" }

    static func json(_ payload: [String: Any]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys]), as: UTF8.self)
    }
}
