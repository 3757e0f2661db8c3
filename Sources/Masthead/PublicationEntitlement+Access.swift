extension PublicationEntitlement {
    /// The readable issues with their reasons (R11–R13), ordered by publish instant, then id.
    ///
    /// Cost: two binary searches per period plus the issues it grants; no scan of the catalog.
    static func readableIssues(
        publication: Publication, periods: [Period], singlePurchases: [ExactKey: String], grantedIssues: [ExactKey: Grant], at: Instant
    ) -> [ReadableIssue] {
        let published = publication.countPublished(atOrBefore: at)
        var entries: [(index: Int, reason: AccessReason)] = []
        for (number, period) in periods.enumerated() {
            switch period.access {
            case .archive:
                // R11: published while active…
                let first = publication.countPublished(before: period.start)
                let last = min(publication.countPublished(before: period.end), published)
                // Appended as one run, so that the array grows once (geometrically) for it.
                if first < last { entries.append(contentsOf: (first..<last).lazy.map { (index: $0, reason: .publishedDuringPeriod(period: number)) }) }
                // …and the latest issue at the period's start (all of those sharing its instant).
                var unlocked = publication.countPublished(atOrBefore: period.start) - 1
                let instant = unlocked >= 0 ? publication.issues[unlocked].published : at
                while unlocked >= 0 && publication.issues[unlocked].published == instant {
                    entries.append((unlocked, .unlockedAtPeriodStart(period: number)))
                    unlocked -= 1
                }
            case .streaming:
                // R12: everything published (or the latest `window`) while the period covers the instant.
                guard period.contains(at) else { continue }
                let window = self.window(of: period, at: at)
                let first = window.map { max(0, published - $0) } ?? 0
                entries.append(contentsOf: (first..<published).lazy.map { (index: $0, reason: .streaming(period: number, window: window)) })
            }
        }
        for (issueId, transactionId) in singlePurchases {
            if let index = publication.index(ofIssue: issueId.text), index < published {
                entries.append((index, .singlePurchase(transactionId: transactionId)))
            }
        }
        for (issueId, grant) in grantedIssues {
            if let index = publication.index(ofIssue: issueId.text), index < published {
                entries.append((index, .granted(grantId: grant.grantId, source: grant.source)))
            }
        }
        for index in publication.freeIssueIndices where index < published { entries.append((index, .free)) }
        entries.sort { ($0.index, rank($0.reason)) < ($1.index, rank($1.reason)) }
        var result: [ReadableIssue] = []
        result.reserveCapacity(entries.count)
        var lastIndex = -1
        for entry in entries {
            // By position: two issues may have ids that differ only in their bytes.
            if entry.index == lastIndex, let last = result.last {
                if !last.reasons.contains(entry.reason) { result[result.count - 1].reasons.append(entry.reason) }
            } else {
                result.append(ReadableIssue(issue: publication.issues[entry.index], reasons: [entry.reason]))
                lastIndex = entry.index
            }
        }
        return result
    }

    /// Orders reasons: periods first (by period), then streaming, single purchase, grant, free.
    private static func rank(_ reason: AccessReason) -> Int {
        switch reason {
        case .publishedDuringPeriod(let period): period * 4
        case .unlockedAtPeriodStart(let period): period * 4 + 1
        case .streaming(let period, _): period * 4 + 2
        case .singlePurchase: Int.max - 2
        case .granted: Int.max - 1
        case .free: Int.max
        }
    }

    /// The streaming window in force at `at` (R12): the largest of the covering products' windows,
    /// or nil (all issues) when one of them has none.
    static func window(of period: Period, at: Instant) -> Int? {
        let covering = period.intervals.filter { $0.contains(at) }
        if covering.isEmpty || covering.contains(where: { $0.window == nil }) { return nil }
        return covering.compactMap(\.window).max()
    }

    /// The subscription state and renewal details (R15).
    static func status(
        intervals: [Interval], subscriptions: [Transaction], history: PurchaseHistory, environment: Environment, at: Instant
    ) -> SubscriptionStatus {
        // Read in place: only the latest subscription and the grant found are copied.
        var latestIndex: Int?
        for index in subscriptions.indices {
            if let current = latestIndex {
                let (held, next) = (subscriptions[current].expires!, subscriptions[index].expires!)
                guard held != next ? held < next : subscriptions[current].transactionId.precedesInBytes(subscriptions[index].transactionId) else { continue }
            }
            latestIndex = index
        }
        let latest = latestIndex.map { subscriptions[$0] }
        let renewal = latest.flatMap { latest in
            history.renewal(
                forOriginalTransaction: latest.originalTransactionId, environment: environment,
                latestProductId: subscriptions.last { $0.originalTransactionId.sameBytes(as: latest.originalTransactionId) }?.productId
                    ?? latest.productId, asOf: at)
        }
        let state: SubscriptionState
        // A span grant covering the instant makes it active too (R17).
        if intervals.contains(where: { $0.kind != .grace && $0.contains(at) }) {
            state = .active
        } else if intervals.contains(where: { $0.kind == .grace && $0.contains(at) }) {
            state = .gracePeriod
        } else if let latest, let expires = latest.expires, expires <= at,
            at.milliseconds - expires.milliseconds < 60 * Instant.millisecondsPerDay, renewal?.isInBillingRetry == true,
            // R5.3: a transaction a revocation ended is over, not waiting for a payment.
            latest.cancellation(asOf: at) == nil || !latest.cancellationEndsTransaction
        {
            state = .billingRetry
        } else if intervals.contains(where: { $0.start <= at }) {
            state = .expired
        } else {
            state = .none
        }
        // The covering span grant that ends last; at equal ends, the first of the least id.
        var grantIndex: Int?
        for index in intervals.indices where intervals[index].kind == .grant && intervals[index].contains(at) {
            if let current = grantIndex {
                let (held, next) = (intervals[current].end, intervals[index].end)
                guard held != next ? held < next : intervals[index].transactionId.precedesInBytes(intervals[current].transactionId) else { continue }
            }
            grantIndex = index
        }
        let grant = grantIndex.map { intervals[$0] }
        return SubscriptionStatus(
            state: state, autoRenewOn: renewal?.autoRenewOn, autoRenewProductId: renewal?.autoRenewProductId,
            currentProductId: latest?.productId, expirationIntent: renewal?.expirationIntent, renewalTerms: renewal?.terms,
            grantId: grant?.transactionId, grantSource: grant?.productId)
    }
}
