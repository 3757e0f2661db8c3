public import Foundation

/// The public app receipts of `Tests/Fixtures/app-receipts` (their origins and the transaction
/// ids expected of each are in its README).
public enum AppReceiptFixtures {
    /// The folder holding the receipts.
    public static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/app-receipts")

    /// Apple's Xcode receipt with one in-app purchase, transaction id `0`.
    public static let withTransaction = "xcode-app-receipt-with-transaction"
    /// Apple's Xcode receipt without in-app purchases.
    public static let empty = "xcode-app-receipt-empty"
    /// RevenueCat's sandbox receipt: nine in-app purchases of subscription 1000000692878476.
    public static let sandbox = "revenuecat-sandbox-receipt-sample1"

    /// A receipt's base64 text, as an app sends it.
    public static func base64(_ name: String) throws -> String {
        try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
    }
}
