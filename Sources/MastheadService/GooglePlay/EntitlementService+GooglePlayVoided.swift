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

    /// How long before a voided purchase notification's `eventTime` its confirmation looks.
    static let voidConfirmationLookBackMilliseconds: Int64 = 86_400_000
    /// Most pages the confirmation of one void reads.
    static let maxVoidConfirmationPages = 10

    /// Asks the Voided Purchases API (`type=1`: subscriptions too; quantity-based partial refunds
    /// too) for every page of the purchases voided within the last 30 days and records each
    /// order's void (prorated for `refundType` 2, R5.3; else R5.1) as the voided purchase
    /// notification does. Recording a void again changes nothing (an order's refunds combine, R18),
    /// so every poll can ask for Google's whole window. Nothing when Google Play is off.
    /// - Throws: ``GooglePlayServiceError`` when Google fails or answers what cannot be read (the
    ///   pages read before are recorded), or the store's error.
    @discardableResult
    public func pollGooglePlayVoidedPurchases() throws -> GooglePlayVoidedReport {
        var report = GooglePlayVoidedReport()
        guard let google = googlePlay else { return report }
        let start = Instant(milliseconds: GooglePlayConnection.systemNow().milliseconds - Self.voidedWindowMilliseconds)
        var pageToken: String?
        repeat {
            let page = try voidedPage(google, start: start, partialRefunds: true, pageToken: pageToken)
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

    /// The void of the order `orderId` of `token` as the Voided Purchases API lists it (a token
    /// and an order id are their exact bytes), looked for among the purchases voided from a day
    /// before `eventTime` (no earlier than Google's 30 days) to now, quantity-based partial refunds
    /// too when `partialRefund`, of the kind the notification says (a partial refund of the order
    /// when `partialRefund`, else a full one: an order refunded in part and then in full is listed
    /// twice); nil when it is not listed. A voided purchase notification is applied only as
    /// confirmed here, at the instant Google lists.
    /// - Throws: ``GooglePlayServiceError`` when Google fails or answers what cannot be read.
    func confirmedGooglePlayVoid(
        _ google: GooglePlayConnection, token: String, orderId: String, eventTime: Instant, partialRefund: Bool
    ) throws(GooglePlayServiceError) -> VoidedPurchase? {
        let now = GooglePlayConnection.systemNow().milliseconds
        // Google lists 30 days back at most; a minute spare for the clocks.
        let earliest = now - Self.voidedWindowMilliseconds + 60_000
        let start = Instant(milliseconds: min(max(eventTime.milliseconds - Self.voidConfirmationLookBackMilliseconds, earliest), now))
        var pageToken: String?
        var pages = 0
        repeat {
            let page = try voidedPage(google, start: start, partialRefunds: partialRefund, pageToken: pageToken)
            pages += 1
            if let voided = page.voidedPurchases.first(where: {
                $0.purchaseToken.sameBytes(as: token) && $0.orderId.sameBytes(as: orderId) && $0.isPartial == partialRefund
            }) { return voided }
            pageToken = page.nextPageToken
        } while pageToken != nil && pages < Self.maxVoidConfirmationPages
        return nil
    }

    /// One page of the Voided Purchases API, decoded.
    private func voidedPage(_ google: GooglePlayConnection, start: Instant, partialRefunds: Bool, pageToken: String?) throws(GooglePlayServiceError) -> VoidedPurchasesPage {
        let body: [UInt8]
        do {
            body = try google.client.voidedPurchases(packageName: google.packageName, startTime: start, partialRefunds: partialRefunds, pageToken: pageToken)
        } catch .refused(let endpoint, let status, let detail) {
            // Not a purchase token Google refused (as for a read): the list itself.
            throw .badAnswer(GooglePlayError.refused(endpoint: endpoint, status: status, detail: detail).description)
        } catch {
            throw google.failure(error)
        }
        do { return try VoidedPurchasesPage.decode(body) } catch { throw .badAnswer("Google's voided purchases: \(error)") }
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
