import Foundation
import MastheadTestSupport

/// Signed inputs for the commands' tests: the shipped signed Table 6-1 reader, pieces of it, and
/// tokens signed on the spot with the test chain.
enum SignedData {
    /// The shipped signed Table 6-1 reader, relative to the package root.
    static let table61Path = "Catalog/the-monthly/receipts/table-6-1-signed.json"
    /// The test chain's root, relative to the package root.
    static let root = "Tests/Fixtures/test-chain/root.der"
    /// The trust option for data the test chain signed.
    static let trustTestChain = ["--root-certificate", root]

    /// The shipped document's tokens.
    static func table61() throws -> (transactions: [String], renewals: [String]) {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: Tool.root.appendingPathComponent(table61Path))) as! [String: [String]]
        return (object["signedTransactions"]!, object["signedRenewalInfos"]!)
    }

    /// A signed-transactions document, on one line.
    static func document(transactions: [String], renewals: [String] = []) -> String {
        let strings = { (tokens: [String]) in tokens.map { "\"\($0)\"" }.joined(separator: ",") }
        return #"{"signedTransactions":[\#(strings(transactions))],"signedRenewalInfos":[\#(strings(renewals))]}"#
    }

    /// An audit input line of `user` holding signed data.
    static func line(_ user: String, transactions: [String], renewals: [String] = []) -> String {
        #"{"user_id":"\#(user)","# + document(transactions: transactions, renewals: renewals).dropFirst()
    }

    /// `token` with one character of its signature changed: it no longer verifies.
    static func tampered(_ token: String) -> String {
        var characters = Array(token)
        let index = characters.count - 20
        characters[index] = characters[index] == "A" ? "B" : "A"
        return String(characters)
    }

    /// A signed transaction of the test chain: Table 6-1's third purchase, changed by `fields`
    /// (JSON members written over the defaults).
    static func transaction(_ fields: [String: Any] = [:]) throws -> String {
        var payload: [String: Any] = [
            "transactionId": "1000003", "originalTransactionId": "1000001", "bundleId": "com.example.magazine", "productId": "com.example.monthly",
            "purchaseDate": 1_592_395_200_000, "expiresDate": 1_594_987_200_000, "type": "Auto-Renewable Subscription",
            "inAppOwnershipType": "PURCHASED", "signedDate": 1_592_395_200_000, "environment": "Production",
        ]
        payload.merge(fields) { $1 }
        return try sign(payload)
    }

    /// A version 2 notification body `{"signedPayload": …}` carrying `transaction` and `renewal`.
    static func notification(transaction: String, renewal: String, appAppleId: Int = 1_234_567_890) throws -> String {
        let payload: [String: Any] = [
            "notificationType": "DID_RENEW", "notificationUUID": "5b0ad7a4-8bd2-4d7f-9e7c-62d9e3b1a1f0", "version": "2.0",
            "signedDate": 1_592_395_300_000,
            "data": [
                "bundleId": "com.example.magazine", "appAppleId": appAppleId, "environment": "Production", "status": 1,
                "signedTransactionInfo": transaction, "signedRenewalInfo": renewal,
            ] as [String: Any],
        ]
        return #"{"signedPayload":"\#(try sign(payload))"}"#
    }

    /// `payload` as JSON, signed by the test chain.
    static func sign(_ payload: [String: Any]) throws -> String {
        try TestChain.sign(String(decoding: try JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys]), as: UTF8.self))
    }

    /// Writes `text` to `name` in `folder`; returns its path.
    static func write(_ text: String, _ name: String, in folder: URL) throws -> String {
        let url = folder.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }
}
