import MastheadFormats
import MastheadJSON
import MastheadStorage

/// Polls Apple for the subscriptions about to expire and applies the answers like posted receipts.
public struct Refresher: Sendable {
    public let service: EntitlementService
    public let client: VerifyReceiptClient

    /// Creates a refresher.
    public init(service: EntitlementService, client: VerifyReceiptClient) {
        self.service = service
        self.client = client
    }

    /// What one polling run did.
    public struct Report: Sendable {
        public var due = 0
        public var refreshed = 0
        /// Subscriptions without a stored receipt to re-verify.
        public var withoutReceipt = 0
        public var failures: [(originalTransactionId: String, reason: String)] = []
    }

    /// Re-verifies every subscription expiring within `milliseconds` from now.
    public func run(within milliseconds: Int64) throws -> Report {
        var report = Report()
        let decoder = ReceiptDecoder(catalog: service.catalog)
        for entry in try service.dueForRefresh(within: milliseconds) {
            report.due += 1
            guard let receiptData = entry.latestReceipt else {
                report.withoutReceipt += 1
                continue
            }
            do {
                let body = try client.verify(receiptData)
                let document = try JSONDocument(parsing: body)
                let receipt = try decoder.decode(document.root, path: "$")
                try service.applyPolled(receipt, userId: entry.userId, latestReceipt: document.root.member("latest_receipt")?.string ?? receiptData)
                report.refreshed += 1
            } catch {
                report.failures.append((entry.originalTransactionId, "\(error)"))
            }
        }
        return report
    }
}
