/// One user's entitlement to one publication as of an instant: status, periods, readable issues.
public struct PublicationEntitlement: Sendable {
    public let publication: Publication
    public private(set) var at: Instant
    public let environment: Environment
    /// The as-of instants for which this answer holds unchanged (it contains ``at``): every
    /// comparison the rules make with the as-of instant comes out the same inside it.
    public let stable: Range<Instant>
    /// The state and renewal details (R15).
    public let status: SubscriptionStatus
    /// Periods that have started by the as-of instant, ordered by start, then access style (R8, R10).
    public private(set) var periods: [Period]
    /// Purchases that would have granted this publication but were refunded by the as-of instant
    /// (R5.1), and those a revocation ended by then (R5.3).
    public let refunded: [RefundedPurchase]
    /// Readable issues ordered by publish instant, then id, each with its reasons (R11–R13, R16).
    public internal(set) var readable: [ReadableIssue]
    /// The transactions of products that grant the publication, by purchase instant, then id.
    private var transactions: [ProductPurchase]
    /// Issue grants of the publication revoked by the as-of instant (R17), for denials.
    private let revokedIssueGrants: [Grant]
    /// Span grants a revocation by the as-of instant cut short (R17), for denials.
    private let revokedSpans: [(grant: Grant, access: AccessStyle)]
    /// Whether the reader holds anything for the publication as of the as-of instant, free issues
    /// aside: a purchase (refunded ones included) or a grant (revoked ones included), for denials.
    let holdsAnything: Bool

    init(
        publication: Publication, transactions: [ProductPurchase], history: PurchaseHistory, catalog: Catalog, at: Instant,
        environment: Environment
    ) {
        self.publication = publication
        self.at = at
        self.environment = environment
        self.transactions = transactions
        var builder = IntervalBuilder(publication: publication, catalog: catalog, at: at)
        builder.add(transactions)
        if !history.grants.isEmpty { builder.add(history.grants) }
        builder.addGraceExtensions(history: history, environment: environment)
        var periods = Period.merge(builder.intervals, access: .archive)
        periods += Period.merge(builder.intervals, access: .streaming)
        periods.removeAll { $0.start > at }
        periods.sort { ($0.start, $0.access) < ($1.start, $1.access) }
        self.periods = periods
        refunded = builder.refunded
        revokedIssueGrants = builder.revokedIssueGrants
        revokedSpans = builder.revokedSpans
        holdsAnything =
            transactions.contains { $0.transaction.purchase <= at } || !builder.intervals.isEmpty || !builder.grantedIssues.isEmpty
            || !builder.revokedIssueGrants.isEmpty || !builder.revokedSpans.isEmpty
        readable = PublicationEntitlement.readableIssues(
            publication: publication, periods: periods, singlePurchases: builder.singlePurchases, grantedIssues: builder.grantedIssues, at: at)
        status = PublicationEntitlement.status(
            intervals: builder.intervals, subscriptions: builder.autoRenewable, history: history,
            environment: environment, at: at)
        stable = PublicationEntitlement.stableRange(
            at: at, publication: publication, transactions: transactions, history: history, environment: environment,
            builder: builder)
    }

    /// The same answer as of another instant inside ``stable``.
    public func asOf(_ instant: Instant) -> PublicationEntitlement {
        precondition(stable.contains(instant), "\(instant) lies outside the answer's stable range")
        var copy = self
        copy.at = instant
        return copy
    }

    /// The same answer keeping only what deciding and explaining one issue reads (``access(toIssue:)``,
    /// ``AccessReason/explanation(of:in:)``), for the download check's cache: no transactions (so
    /// ``purchases`` is empty), and archive periods keep only their grants' intervals (streaming
    /// periods keep every interval: their windows come from them), and issues readable for the
    /// same reasons share one array of them. Its status, periods' bounds, refunds, readable issues
    /// and stable range are the same.
    public func keepingIssueDecisions() -> PublicationEntitlement {
        var kept = self
        kept.transactions = []
        for index in kept.periods.indices where kept.periods[index].access == .archive {
            // A new array, not the old one's buffer emptied in place.
            kept.periods[index].intervals = kept.periods[index].intervals.filter { $0.kind == .grant }
        }
        // Issues readable for the same reasons share one array of them (one allocation, not one an issue).
        var distinct: [[AccessReason]] = []
        for index in kept.readable.indices {
            let reasons = kept.readable[index].reasons
            if let same = distinct.first(where: { $0.count == reasons.count && zip($0, reasons).allSatisfy { $0.sameBytes(as: $1) } }) {
                kept.readable[index].reasons = same
            } else {
                distinct.append(kept.readable[index].reasons)
            }
        }
        return kept
    }

    /// The range around `at` that no instant the rules compare `at` with falls into: purchases,
    /// cancellations, expiries (and 60 days after, R15), grace ends, renewal infos' evidence
    /// instants, grants' starts, ends and revocations, interval and period bounds (stacked passes
    /// included), refunds' bounds, publish instants.
    private static func stableRange(
        at: Instant, publication: Publication, transactions: [ProductPurchase],
        history: PurchaseHistory, environment: Environment, builder: IntervalBuilder
    ) -> Range<Instant> {
        var lower = Instant(milliseconds: .min)
        var upper = Instant.distantFuture
        func consider(_ event: Instant) {
            if event <= at { lower = max(lower, event) } else { upper = min(upper, event) }
        }
        for purchase in transactions {
            let transaction = purchase.transaction
            consider(transaction.purchase)
            if let cancellation = transaction.countedCancellation { consider(cancellation) }
            if let expires = transaction.expires {
                consider(expires)
                consider(expires.adding(milliseconds: 60 * Instant.millisecondsPerDay))
            }
        }
        for renewal in history.renewals where renewal.environment == environment {
            if let grace = renewal.gracePeriodExpires { consider(grace) }
            // The renewal info in use changes when a newer one becomes known (R2.7).
            if let evidence = renewal.evidence { consider(evidence) }
        }
        for grant in history.grants where grant.names(publication.id) {
            consider(grant.start)
            if let end = grant.end { consider(end) }
            if let revokedAt = grant.revokedAt { consider(revokedAt) }
        }
        for interval in builder.intervals {
            consider(interval.start)
            consider(interval.end)
        }
        for refund in builder.refunded {
            consider(refund.start)
            consider(refund.end)
        }
        let published = publication.countPublished(atOrBefore: at)
        if published > 0 { consider(publication.issues[published - 1].published) }
        if published < publication.issues.count { consider(publication.issues[published].published) }
        return lower..<upper
    }

    /// The transactions of products that grant the publication, purchased by the as-of instant
    /// (R10), by purchase instant, then id: what shows their terms (``Transaction/terms``).
    public var purchases: [Transaction] {
        transactions.filter { $0.transaction.purchase <= at }.map(\.transaction)
    }

    /// The ids of the readable issues, in order.
    public var readableIssueIds: [String] { readable.map(\.issue.id) }

    /// The lapses: gaps between consecutive periods of one access style, and the time since the
    /// last one ended when it ended by the as-of instant (then `end` is nil).
    public var lapses: [(access: AccessStyle, start: Instant, end: Instant?)] {
        var result: [(access: AccessStyle, start: Instant, end: Instant?)] = []
        for style in AccessStyle.allCases {
            let runs = periods.filter { $0.access == style }
            for (previous, next) in zip(runs, runs.dropFirst()) { result.append((style, previous.end, next.start)) }
            if let last = runs.last, last.end <= at { result.append((style, last.end, nil)) }
        }
        return result.sorted { $0.start < $1.start }
    }

    /// The decision on every issue of the publication, in publish order (R16).
    public var decisions: [(issue: Issue, access: IssueAccess)] {
        var reasonsByIndex: [Int: [AccessReason]] = [:]
        for entry in readable {
            if let index = publication.index(ofIssue: entry.issue.id) { reasonsByIndex[index] = entry.reasons }
        }
        return publication.issues.enumerated().map { index, issue in
            if let reasons = reasonsByIndex[index] { return (issue, .readable(reasons)) }
            return (issue, .notReadable(denial(for: issue)))
        }
    }

    /// The decision on one issue, or nil when the publication has no such issue.
    public func access(toIssue issueId: String) -> IssueAccess? {
        guard let index = publication.index(ofIssue: issueId) else { return nil }
        let issue = publication.issues[index]
        if let entry = readable.first(where: { $0.issue.id.sameBytes(as: issueId) }) { return .readable(entry.reasons) }
        return .notReadable(denial(for: issue))
    }

    /// Why an issue that is not readable is not (R16).
    func denial(for issue: Issue) -> Denial {
        if issue.published > at { return .notYetPublished }
        let archive = periods.filter { $0.access == .archive }
        let streaming = periods.filter { $0.access == .streaming }
        if let refund = refunded.first(where: { covered(issue, by: $0) }) { return denial(for: refund) }
        if let grant = revokedIssueGrants.first(where: { $0.givesIssue(issue.id) }), let revokedAt = grant.revokedAt {
            return .grantRevoked(grantId: grant.grantId, source: grant.source, revokedAt: revokedAt)
        }
        if let first = archive.first {
            if issue.published < first.start { return .publishedBeforeSubscription(firstPeriodStart: first.start) }
            let before = archive.last { $0.end <= issue.published } ?? first
            // A lapse a span grant's revocation began, over an issue the grant would have given.
            if let cut = revokedSpan(.archive, endingAt: before.end, covering: issue.published) { return cut }
            let after = archive.first { $0.start > issue.published }
            return .publishedDuringLapse(lapseStart: before.end, lapseEnd: after?.start)
        }
        if !streaming.isEmpty {
            if let active = streaming.first(where: { $0.contains(at) }) {
                return .outsideStreamingWindow(window: PublicationEntitlement.window(of: active, at: at) ?? 0)
            }
            let since = streaming.last { $0.end <= at }?.end
            if let since, let cut = revokedSpan(.streaming, endingAt: since, covering: at) { return cut }
            return .streamingInactive(since: since)
        }
        if let refund = refunded.first { return denial(for: refund) }
        return .notSubscribed
    }

    /// The denial naming a span grant of `access` whose revocation ended a period at `end`, when
    /// the grant would still have covered `instant` (R17); nil when none did.
    private func revokedSpan(_ access: AccessStyle, endingAt end: Instant, covering instant: Instant) -> Denial? {
        guard
            let cut = revokedSpans.first(where: {
                $0.access == access && $0.grant.revokedAt == end && instant >= end && instant < $0.grant.end ?? .distantFuture
            }), let revokedAt = cut.grant.revokedAt
        else { return nil }
        return .grantRevoked(grantId: cut.grant.grantId, source: cut.grant.source, revokedAt: revokedAt)
    }

    /// A refund's denial: refunded (R5.1), or ended by the revocation (R5.3).
    private func denial(for refund: RefundedPurchase) -> Denial {
        guard refund.endedPurchase, let type = refund.revocationType else { return .refunded(transactionId: refund.transactionId) }
        return .endedByRevocation(
            transactionId: refund.transactionId, revokedAt: refund.refundedAt, revocationType: type, percentage: refund.revocationPercentage)
    }

    /// Whether a refunded purchase would have granted the issue had it not been refunded.
    private func covered(_ issue: Issue, by refund: RefundedPurchase) -> Bool {
        if let issueId = refund.issueId { return issueId.sameBytes(as: issue.id) }
        return refund.start <= issue.published && issue.published < refund.end
    }
}

/// A purchase refunded by the as-of instant (R5.1), or ended by a revocation (R5.3), with what
/// it would have granted.
public struct RefundedPurchase: Hashable, Sendable {
    public var transactionId: String
    public var productId: String
    /// When Apple refunded or revoked it.
    public var refundedAt: Instant
    /// The time it would have paid for (R5.1; for a single issue, `[purchase, purchase)`), or, for a
    /// revocation that ended it (R5.3), the time it no longer pays for: from the revocation (or
    /// its start, when later) to its end.
    public var start: Instant
    public var end: Instant
    /// For a single-issue purchase, the issue.
    public var issueId: String?
    /// How Apple revoked it, when the signed state said so (R5.3); nil for a refund known from
    /// receipts.
    public var revocationType: RevocationType?
    /// The share refunded or revoked in thousandths of a percent, when the signed state said so.
    public var revocationPercentage: Int32?

    /// Whether the revocation ended the purchase, keeping what it paid for before (R5.3), rather
    /// than refunding all of it (R5.1).
    public var endedPurchase: Bool { revocationType?.endsTransaction == true }
}
