public import MastheadAppStore
import Masthead
import MastheadFormats
import MastheadJSON
import MastheadStorage

/// Polls Apple for the subscriptions about to expire and applies the answers.
///
/// A subscription with signed data (``MastheadStorage/RefreshDue/signed``) is asked of the App
/// Store Server API (Get All Subscription Statuses with its original transaction id, in its
/// stored environment only) and the verified answer applied as a version 2 notification is (an
/// answer without a signed transaction of that subscription is a failure, applied nowhere); without a configured key it is
/// counted as not polled, unless it has a stored receipt, which verifyReceipt re-verifies.
/// Receipts-only subscriptions keep verifyReceipt.
public struct Refresher: Sendable {
    public let service: EntitlementService
    public let client: VerifyReceiptClient
    /// The App Store Server API client; nil when no key is configured.
    public let appStoreServerAPI: AppStoreServerAPIClient?

    /// Creates a refresher.
    public init(service: EntitlementService, client: VerifyReceiptClient, appStoreServerAPI: AppStoreServerAPIClient? = nil) {
        self.service = service
        self.client = client
        self.appStoreServerAPI = appStoreServerAPI
    }

    /// What one polling run did.
    public struct Report: Sendable {
        public var due = 0
        /// Subscriptions refreshed through the App Store Server API.
        public var refreshedByAPI = 0
        /// Subscriptions refreshed through verifyReceipt.
        public var refreshedByReceipt = 0
        /// Subscriptions without signed data and without a stored receipt to re-verify.
        public var withoutReceipt = 0
        /// Subscriptions with signed data (and no receipt) not polled: no App Store Server API key.
        public var notPolled = 0
        public var failures: [(originalTransactionId: String, reason: String)] = []

        /// Subscriptions refreshed by either path.
        public var refreshed: Int { refreshedByAPI + refreshedByReceipt }

        /// The summary line, such as `3 due, 2 refreshed (1 by the App Store Server API, 1 by verifyReceipt), …`.
        public var summary: String {
            "\(due) due, \(refreshed) refreshed (\(refreshedByAPI) by the App Store Server API, \(refreshedByReceipt) by verifyReceipt), "
                + "\(withoutReceipt) without a stored receipt, \(notPolled) not polled: no App Store Server API key, \(failures.count) failed"
        }
    }

    /// The failure of a subscription whose polled answer has no signed transaction of it
    /// (nothing of that answer is applied).
    static let notInAnswer = "Apple's answer does not hold this subscription"

    /// Refreshes every subscription expiring within `milliseconds` from now.
    public func run(within milliseconds: Int64) throws -> Report {
        var report = Report()
        let decoder = ReceiptDecoder(catalog: service.catalog)
        for entry in try service.dueForRefresh(within: milliseconds) {
            report.due += 1
            if entry.signed, let appStoreServerAPI {
                do {
                    let statuses = try appStoreServerAPI.subscriptionStatuses(transactionId: entry.originalTransactionId, servers: .only(entry.environment))
                    let original = entry.originalTransactionId
                    guard statuses.subscriptions.contains(where: { $0.transaction?.transaction.originalTransactionId.sameBytes(as: original) == true }) else {
                        report.failures.append((entry.originalTransactionId, Self.notInAnswer))
                        continue
                    }
                    try service.applyPolled(statuses)
                    report.refreshedByAPI += 1
                } catch {
                    report.failures.append((entry.originalTransactionId, "\(error)"))
                }
                continue
            }
            guard let receiptData = entry.latestReceipt else {
                if entry.signed { report.notPolled += 1 } else { report.withoutReceipt += 1 }
                continue
            }
            do {
                let body = try client.verify(receiptData)
                let document = try JSONDocument(parsing: body)
                let receipt = try decoder.decode(document.root, path: "$")
                try service.applyPolled(receipt, userId: entry.userId, latestReceipt: document.root.member("latest_receipt")?.string ?? receiptData)
                report.refreshedByReceipt += 1
            } catch {
                report.failures.append((entry.originalTransactionId, "\(error)"))
            }
        }
        return report
    }
}
