import Foundation
import Masthead
import MastheadFormats
import MastheadJSON

/// The App Store decoders' targets: decode with the shipped catalog, then decide entitlements
/// over what was read, as the service does for a posted receipt or notification.
enum FormatsFuzzing {
    /// The shipped example catalog (`Catalog/the-monthly`), read once.
    static let catalog: Catalog = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let file = root.appendingPathComponent("Catalog/the-monthly/catalog.json")
        guard let data = FileManager.default.contents(atPath: file.path) else { fatalError("cannot read \(file.path)") }
        do { return try CatalogDecoder().decode([UInt8](data), file: file.path) } catch { fatalError("\(error)") }
    }()

    static let receipts = ReceiptDecoder(catalog: catalog)
    static let notifications = NotificationDecoder(catalog: catalog)

    static func runReceipt(_ bytes: [UInt8]) {
        do {
            let receipt = try receipts.decode(bytes)
            evaluate(receipt.history, environment: receipt.environment)
        } catch {
            _ = error.description
        }
    }

    static func runNotification(_ bytes: [UInt8]) {
        do {
            let notification = try notifications.decode(bytes)
            let history = PurchaseHistory(transactions: notification.transactions, renewals: notification.renewals)
            evaluate(history, environment: notification.environment)
        } catch {
            _ = error.description
        }
    }

    /// Decides every publication at the instants the history's dates fall around, and writes the
    /// answer as the service would.
    static func evaluate(_ history: PurchaseHistory, environment: Environment) {
        let engine = EntitlementEngine(catalog: catalog)
        var instants: Set<Instant> = [Instant(milliseconds: 1_593_648_000_000)]
        for transaction in history.transactions.prefix(4) {
            instants.insert(transaction.purchase)
            if let expiry = transaction.expires { instants.insert(expiry) }
        }
        for at in instants {
            var writer = JSONWriter()
            EntitlementJSON.write(engine.evaluate(history, at: at, environment: environment), userId: "fuzz", into: &writer)
        }
    }
}
