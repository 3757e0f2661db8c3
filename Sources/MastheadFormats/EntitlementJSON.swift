public import Masthead
public import MastheadJSON

/// Writes entitlements as JSON: the shape of `masthead check --format json` and of the service's
/// entitlement answers. Instants are RFC 3339 UTC strings; `null` stands for "never" or "unknown".
public enum EntitlementJSON {
    /// The whole answer for one user.
    public static func write(_ entitlements: UserEntitlements, userId: String?, into writer: inout JSONWriter) {
        writer.beginObject()
        if let userId { writer.field("user_id", userId) }
        writer.field("at", entitlements.at.description)
        writer.field("environment", entitlements.environment.rawValue)
        writer.array("publications", entitlements.publications) { writer, publication in write(publication, into: &writer) }
        writer.array("unknownProducts", entitlements.unknownProductIds) { writer, productId in writer.string(productId) }
        writer.endObject()
    }

    /// One publication: status, periods, lapses, refunds, the terms of its purchases and every issue's decision.
    public static func write(_ entitlement: PublicationEntitlement, into writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("publication", entitlement.publication.id)
        writer.field("title", entitlement.publication.title)
        writer.key("status")
        write(entitlement.status, into: &writer)
        writer.array("periods", entitlement.periods.enumerated()) { writer, period in
            write(period.element, index: period.offset, into: &writer)
        }
        writer.array("lapses", entitlement.lapses) { writer, lapse in
            writer.beginObject()
            writer.field("access", lapse.access.rawValue)
            writer.field("start", lapse.start.description)
            writer.field("end", lapse.end?.description)
            writer.endObject()
        }
        writer.array("refunded", entitlement.refunded) { writer, refund in
            writer.beginObject()
            writer.field("transactionId", refund.transactionId)
            writer.field("productId", refund.productId)
            writer.field("refundedAt", refund.refundedAt.description)
            writer.field("revocationType", refund.revocationType?.rawValue)
            writeNumber("revocationPercentage", refund.revocationPercentage.map(Int64.init), into: &writer)
            writer.endObject()
        }
        writer.array("purchaseTerms", entitlement.purchases) { writer, transaction in
            if let terms = transaction.terms { write(terms, of: transaction, into: &writer) }
        }
        writer.array("readable", entitlement.readable) { writer, entry in writer.string(entry.issue.id) }
        writer.array("issues", entitlement.decisions) { writer, decision in
            write(decision.issue, decision.access, entitlement, into: &writer)
        }
        writer.endObject()
    }

    /// The answer to "can the user read this issue": `{"readable": …, "reasons"|"reason": …}`.
    public static func write(_ issue: Issue, _ access: IssueAccess, _ entitlement: PublicationEntitlement, into writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("id", issue.id)
        writer.field("published", issue.published.description)
        writeDecision(access, entitlement, mainReason: false, into: &writer)
        writer.endObject()
    }

    /// The download check's answer: `{"readable": true, "reason": {…}, "reasons": […]}`, or
    /// `{"readable": false, "reason": {…}}`, with the user, publication, issue and as-of instant,
    /// and the decision in words as `masthead check` prints it (`"explanation"`,
    /// ``IssueAccess/explanation(of:in:)``).
    /// - Returns: where the as-of instant's text lies in `writer.bytes` (between its quotes).
    @discardableResult
    public static func writeCheck(
        _ issue: Issue, _ access: IssueAccess, _ entitlement: PublicationEntitlement, userId: String, into writer: inout JSONWriter
    ) -> Range<Int> {
        writer.beginObject()
        writer.field("user_id", userId)
        writer.field("publication", entitlement.publication.id)
        writer.field("issue", issue.id)
        writer.key("at")
        let atStart = writer.bytes.count + 1
        writer.string(entitlement.at.description)
        let atRange = atStart..<writer.bytes.count - 1
        writeDecision(access, entitlement, mainReason: true, into: &writer)
        writer.field("explanation", access.explanation(of: issue, in: entitlement))
        writer.endObject()
        return atRange
    }

    /// `"readable"` with `"reasons"` (and the first as `"reason"` when `mainReason`), or the denial as `"reason"`.
    static func writeDecision(_ access: IssueAccess, _ entitlement: PublicationEntitlement, mainReason: Bool, into writer: inout JSONWriter) {
        switch access {
        case .readable(let reasons):
            writer.field("readable", true)
            if mainReason {
                writer.key("reason")
                write(reasons[0], entitlement, into: &writer)
            }
            writer.array("reasons", reasons) { writer, reason in write(reason, entitlement, into: &writer) }
        case .notReadable(let denial):
            writer.field("readable", false)
            writer.key("reason")
            write(denial, into: &writer)
        }
    }

    /// An issue of the catalog: `{"id", "title", "published", "free"}`.
    public static func write(_ issue: Issue, into writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("id", issue.id)
        writer.field("title", issue.title)
        writer.field("published", issue.published.description)
        writer.field("free", issue.isFree)
        writer.endObject()
    }

    static func write(_ status: SubscriptionStatus, into writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("state", status.state.rawValue)
        writer.member("autoRenew", status.autoRenewOn) { writer, on in writer.bool(on) }
        writer.field("productId", status.currentProductId)
        writer.field("autoRenewProductId", status.autoRenewProductId)
        writer.field("pendingPlanChange", status.hasPendingPlanChange)
        writer.field("expirationIntent", status.expirationIntent)
        writer.field("grantId", status.grantId)
        writer.field("grantSource", status.grantSource)
        writer.member("renewalTerms", status.renewalTerms) { writer, terms in write(terms, into: &writer) }
        writer.field("manageURL", status.currentProductId == nil ? nil : manageSubscriptionsURL)
        writer.field("billingIssueURL", status.state == .billingRetry || status.state == .gracePeriod ? billingIssueURL : nil)
        writer.endObject()
    }

    /// Where a reader manages their App Store subscriptions (changes plan, cancels, resubscribes):
    /// the status's `"manageURL"` whenever it speaks of an App Store subscription.
    public static let manageSubscriptionsURL = "https://apps.apple.com/account/subscriptions"

    /// Where a reader fixes the payment method of their App Store account: the status's
    /// `"billingIssueURL"` while the App Store retries a failed renewal (billing retry or grace period).
    public static let billingIssueURL = "https://apps.apple.com/account/billing"

    /// A signed transaction's offer and billing terms, with Apple's names; absent fields are `null`.
    static func write(_ terms: PurchaseTerms, of transaction: Transaction, into writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("transactionId", transaction.transactionId)
        writer.field("productId", transaction.productId)
        writer.field("purchased", transaction.purchase.description)
        writeNumber("offerType", terms.offerType.map(Int64.init), into: &writer)
        writer.field("offerIdentifier", terms.offerIdentifier)
        writer.field("offerPeriod", terms.offerPeriod)
        writer.field("appTransactionId", terms.appTransactionId)
        writer.field("billingPlanType", terms.billingPlanType)
        writer.member("commitmentInfo", terms.commitment) { writer, commitment in
            writer.beginObject()
            writeNumber("billingPeriodNumber", commitment.billingPeriodNumber.map(Int64.init), into: &writer)
            writeNumber("totalBillingPeriods", commitment.totalBillingPeriods.map(Int64.init), into: &writer)
            writer.field("commitmentExpiresDate", commitment.expires?.description)
            writeNumber("commitmentPrice", commitment.price, into: &writer)
            writer.endObject()
        }
        writer.endObject()
    }

    /// The renewal info's terms, with Apple's names; absent fields are `null`.
    static func write(_ terms: RenewalTerms, into writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("appAccountToken", terms.appAccountToken)
        writer.field("appTransactionId", terms.appTransactionId)
        writeNumber("offerType", terms.offerType.map(Int64.init), into: &writer)
        writer.field("offerIdentifier", terms.offerIdentifier)
        writer.field("offerPeriod", terms.offerPeriod)
        writer.member("eligibleWinBackOfferIds", terms.eligibleWinBackOfferIds) { writer, ids in
            writer.beginArray()
            for id in ids { writer.string(id) }
            writer.endArray()
        }
        writer.field("renewalBillingPlanType", terms.renewalBillingPlanType)
        writer.member("commitmentInfo", terms.commitment) { writer, commitment in
            writer.beginObject()
            writer.field("commitmentAutoRenewProductId", commitment.autoRenewProductId)
            writeNumber("commitmentAutoRenewStatus", commitment.autoRenewStatus.map(Int64.init), into: &writer)
            writer.field("commitmentRenewalBillingPlanType", commitment.renewalBillingPlanType)
            writer.field("commitmentRenewalDate", commitment.renewalDate?.description)
            writeNumber("commitmentRenewalPrice", commitment.renewalPrice, into: &writer)
            writer.endObject()
        }
        writer.endObject()
    }

    /// `"name": value`, or `"name": null` when `value` is nil.
    private static func writeNumber(_ name: String, _ value: Int64?, into writer: inout JSONWriter) {
        writer.member(name, value) { writer, value in writer.int(value) }
    }

    static func write(_ period: Period, index: Int, into writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("period", Int64(index))
        writer.field("access", period.access.rawValue)
        writer.field("start", period.start.description)
        writer.field("end", period.end == .distantFuture ? nil : period.end.description)
        writer.array("intervals", period.intervals) { writer, interval in
            writer.beginObject()
            // A grant's interval names the grant and its source (R17).
            writer.field(interval.kind == .grant ? "grantId" : "transactionId", interval.transactionId)
            writer.field(interval.kind == .grant ? "source" : "productId", interval.productId)
            writer.field("kind", interval.kind.rawValue)
            writer.field("start", interval.start.description)
            writer.field("end", interval.end == .distantFuture ? nil : interval.end.description)
            writer.endObject()
        }
        writer.endObject()
    }

    /// One reason an issue is readable, as `{"kind": …}` with its details.
    public static func writeReason(_ reason: AccessReason, _ entitlement: PublicationEntitlement, into writer: inout JSONWriter) {
        write(reason, entitlement, into: &writer)
    }

    /// Why an issue is not readable, as `{"kind": …}` with its details.
    public static func writeDenial(_ denial: Denial, into writer: inout JSONWriter) { write(denial, into: &writer) }

    static func write(_ reason: AccessReason, _ entitlement: PublicationEntitlement, into writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("kind", reason.name)
        switch reason {
        case .publishedDuringPeriod(let period), .unlockedAtPeriodStart(let period):
            writer.field("period", Int64(period))
            writer.field("periodStart", entitlement.periods[period].start.description)
        case .streaming(let period, let window):
            writer.field("period", Int64(period))
            writeNumber("window", window.map(Int64.init), into: &writer)
        case .singlePurchase(let transactionId):
            writer.field("transactionId", transactionId)
        case .granted(let grantId, let source):
            writer.field("grantId", grantId)
            writer.field("source", source)
        case .free:
            break
        }
        writer.endObject()
    }

    static func write(_ denial: Denial, into writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("kind", denial.name)
        switch denial {
        case .refunded(let transactionId):
            writer.field("transactionId", transactionId)
        case .endedByRevocation(let transactionId, let revokedAt, let revocationType, let percentage):
            writer.field("transactionId", transactionId)
            writer.field("revokedAt", revokedAt.description)
            writer.field("revocationType", revocationType.rawValue)
            writeNumber("revocationPercentage", percentage.map(Int64.init), into: &writer)
        case .publishedBeforeSubscription(let start):
            writer.field("firstPeriodStart", start.description)
        case .publishedDuringLapse(let start, let end):
            writer.field("lapseStart", start.description)
            writer.field("lapseEnd", end?.description)
        case .streamingInactive(let since):
            writer.field("since", since?.description)
        case .outsideStreamingWindow(let window):
            writer.field("window", Int64(window))
        case .grantRevoked(let grantId, let source, let revokedAt):
            writer.field("grantId", grantId)
            writer.field("source", source)
            writer.field("revokedAt", revokedAt.description)
        case .notYetPublished, .notSubscribed:
            break
        }
        writer.endObject()
    }
}
