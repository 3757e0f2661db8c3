import Masthead
import MastheadFormats
import MastheadGooglePlay
import MastheadStorage

/// Voided purchases polled from Google (`masthead refresh`): refunds and chargebacks a voided
/// purchase notification did not bring.
extension EntitlementService {
    /// What one poll of the Voided Purchases API did.
    public struct GooglePlayVoidedReport: Sendable, Hashable {
        /// Pages read.
        public var pages = 0
        /// Voided purchases listed.
        public var listed = 0
        /// Users whose history changed.
        public var usersChanged = 0
    }

    /// How far back a poll asks: Google lists voided purchases of the last 30 days only.
    static let voidedWindowMilliseconds: Int64 = 30 * 86_400_000
    /// Most pages one poll reads (Google's pages hold up to 1000 purchases).
    static let maxVoidedPages = 100

    /// Asks the Voided Purchases API (`type=1`: subscriptions too) for every page of the purchases
    /// voided within the last 30 days and records each order's void (prorated for `refundType` 2,
    /// R5.3; else R5.1) as the voided purchase notification does. Recording a void again changes
    /// nothing (its first is kept), so every poll can ask for Google's whole window. Nothing when
    /// Google Play is off.
    /// - Throws: ``GooglePlayServiceError`` when Google fails or answers what cannot be read (the
    ///   pages read before are recorded), or the store's error.
    @discardableResult
    public func pollGooglePlayVoidedPurchases() throws -> GooglePlayVoidedReport {
        var report = GooglePlayVoidedReport()
        guard let google = googlePlay else { return report }
        let start = Instant(milliseconds: GooglePlayConnection.systemNow().milliseconds - Self.voidedWindowMilliseconds)
        var pageToken: String?
        repeat {
            let body: [UInt8]
            do { body = try google.client.voidedPurchases(packageName: google.packageName, startTime: start, pageToken: pageToken) } catch {
                throw GooglePlayServiceError(error)
            }
            let page: VoidedPurchasesPage
            do { page = try VoidedPurchasesPage.decode(body) } catch { throw GooglePlayServiceError.badAnswer("Google's voided purchases: \(error)") }
            report.pages += 1
            report.listed += page.voidedPurchases.count
            for voided in page.voidedPurchases {
                let changed = try voidGooglePlayOrderReportingUsers(voided)
                report.usersChanged += changed
            }
            pageToken = page.nextPageToken
        } while pageToken != nil && report.pages < Self.maxVoidedPages
        return report
    }

    /// Records one voided purchase; answers how many users' histories changed.
    private func voidGooglePlayOrderReportingUsers(_ voided: VoidedPurchase) throws -> Int {
        let now = clock()
        return try writeAndWait { store in
            let users = try store.voidGooglePlayOrder(
                token: voided.purchaseToken, orderId: voided.orderId, at: voided.voidedTime, prorated: voided.isPartial, now: now)
            return (users.count, users.map { Change.user($0) })
        }
    }
}
