/// Turns one publication's transactions into intervals as of an instant (R4–R7, R9, R10).
struct IntervalBuilder {
    let publication: Publication
    let catalog: Catalog
    let at: Instant
    private(set) var intervals: [Interval] = []
    private(set) var refunded: [RefundedPurchase] = []
    /// Issue id → the transaction that bought it (the earliest purchase).
    private(set) var singlePurchases: [ExactKey: String] = [:]
    /// Auto-renewable transactions that count as of the instant and were not refunded.
    private(set) var autoRenewable: [Transaction] = []
    /// Issue id → the grant that gives it (the earliest started), for issue grants that count as
    /// of the instant (R17).
    private(set) var grantedIssues: [ExactKey: Grant] = [:]
    /// Issue grants of the publication revoked by the instant (R17), for explanations.
    private(set) var revokedIssueGrants: [Grant] = []
    /// Span grants of the publication a revocation by the instant cut short after their start
    /// (R17), with their access style, for explanations.
    private(set) var revokedSpans: [(grant: Grant, access: AccessStyle)] = []

    init(publication: Publication, catalog: Catalog, at: Instant) {
        self.publication = publication
        self.catalog = catalog
        self.at = at
    }

    /// Adds transactions (with their products) ordered by purchase instant; ones purchased after
    /// the instant are left out (R10). A cancellation that has happened by the instant refunds a
    /// transaction (R5.1), or ends it there when it is an upgrade (R5.2) or a revocation that ends
    /// it (R5.3).
    mutating func add(_ transactions: [ProductPurchase]) {
        // Most transactions give an interval, and most are auto-renewable: room for all at once.
        intervals.reserveCapacity(intervals.count + transactions.count)
        autoRenewable.reserveCapacity(autoRenewable.count + transactions.count)
        var nonRenewing: [(purchase: ProductPurchase, ends: Instant?)] = []
        // Read in place: a transaction is copied only where it is kept.
        transactions.withUnsafeBufferPointer { purchases in
            for index in purchases.indices where purchases[index].transaction.purchase <= at {
                if let stacked = add(purchases[index].transaction, product: purchases[index].product) {
                    nonRenewing.append((purchases[index], stacked.ends))
                }
            }
        }
        stack(nonRenewing)
    }

    /// A non-renewing purchase left to ``stack(_:)``, with the instant a revocation ends it at (R5.3).
    private struct Stacked {
        var ends: Instant?
    }

    /// Adds one transaction purchased by the instant; a non-renewing one to stack is returned instead.
    private mutating func add(_ transaction: Transaction, product: Product) -> Stacked? {
        let cancelled = transaction.cancellation(asOf: at)
        let ends = cancelled.flatMap { transaction.cancellationEndsTransaction ? $0 : nil }
        switch product.type {
        case .autoRenewable:
            addAutoRenewable(transaction, product: product, cancelled: cancelled, endsHere: ends != nil)
        case .nonRenewing:
            guard let duration = product.duration else { return nil }
            if let cancelled, ends == nil {
                refund(transaction, at: cancelled, start: transaction.purchase, end: duration.added(to: transaction.purchase))
            } else {
                return Stacked(ends: ends)
            }
        case .free:
            if let ends {
                refund(transaction, at: ends, start: max(ends, transaction.purchase), end: .distantFuture)
                if ends > transaction.purchase { intervals.append(interval(transaction, product: product, end: ends, kind: .free)) }
            } else if let cancelled {
                refund(transaction, at: cancelled, start: transaction.purchase, end: .distantFuture)
            } else {
                intervals.append(interval(transaction, product: product, end: .distantFuture, kind: .free))
            }
        case .issue:
            guard let issueId = product.issueId else { return nil }
            // R5.3: an issue published before the revocation stays bought, as in an archive.
            let publishedBefore = ends.map { ends in publication.index(ofIssue: issueId).map { publication.issues[$0].published < ends } ?? false }
            if let cancelled, publishedBefore != true {
                refund(transaction, at: cancelled, start: transaction.purchase, end: transaction.purchase, issueId: issueId)
            } else if singlePurchases[ExactKey(issueId)] == nil {
                singlePurchases[ExactKey(issueId)] = transaction.transactionId
            }
        }
        return nil
    }

    /// R4, R5: `[purchase, expires)`; a refund removes it (R5.1), an upgrade (R5.2) or a revocation
    /// that ends it (R5.3) cuts it at the cancellation; the time a revocation took back is listed.
    /// `endsHere`: `cancelled` is a revocation that ends the transaction (R5.3), as ``add(_:)`` decided.
    private mutating func addAutoRenewable(_ transaction: Transaction, product: Product, cancelled: Instant?, endsHere: Bool) {
        guard let expires = transaction.expires else { return }
        if let cancelled, !transaction.isUpgraded, !endsHere {
            refund(transaction, at: cancelled, start: transaction.purchase, end: expires)
            return
        }
        autoRenewable.append(transaction)
        let end = cancelled.map { min(expires, $0) } ?? expires
        if let cancelled, endsHere, !transaction.isUpgraded { refund(transaction, at: cancelled, start: max(end, transaction.purchase), end: expires) }
        guard end > transaction.purchase else { return }
        let kind: IntervalKind =
            cancelled != nil && transaction.isUpgraded
            ? .upgraded
            : transaction.isTrial ? .trial : transaction.isIntroductoryOffer ? .introductoryOffer : transaction.offer != nil ? .offer : .paid
        intervals.append(interval(transaction, product: product, end: end, kind: kind))
    }

    /// R6: each purchase (of a product with a duration) starts at the later of its purchase and
    /// the end of the previous one; one a revocation ends (R5.3) stops there, and the next starts
    /// at the later of its purchase and that instant.
    private mutating func stack(_ purchases: [(purchase: ProductPurchase, ends: Instant?)]) {
        var cursor = Instant(milliseconds: .min)
        let ordered = purchases.sorted {
            $0.purchase.transaction.purchase != $1.purchase.transaction.purchase
                ? $0.purchase.transaction.purchase < $1.purchase.transaction.purchase
                : $0.purchase.transaction.transactionId.precedesInBytes($1.purchase.transaction.transactionId)
        }
        for (purchase, ends) in ordered {
            guard let duration = purchase.product.duration else { continue }
            let start = max(purchase.transaction.purchase, cursor)
            let full = duration.added(to: start)
            let end = ends.map { min(full, max(start, $0)) } ?? full
            if let ends { refund(purchase.transaction, at: ends, start: end, end: full) }
            guard end > start else { continue }
            var stacked = interval(purchase.transaction, product: purchase.product, end: end, kind: .nonRenewing)
            stacked.start = start
            intervals.append(stacked)
            cursor = end
        }
    }

    /// R9: while the instant lies in `[expires, grace expiry)` of a subscription in billing retry,
    /// its latest interval is extended provisionally to the grace expiry.
    mutating func addGraceExtensions(history: PurchaseHistory, environment: Environment) {
        // Most histories have no grace period at all.
        guard history.renewals.contains(where: { $0.isInBillingRetry && $0.gracePeriodExpires != nil && $0.environment == environment }) else { return }
        let subscriptions = Dictionary(grouping: autoRenewable) { ExactKey($0.originalTransactionId) }
        for (originalId, transactions) in subscriptions.sorted(by: { $0.key < $1.key }) {
            guard
                let latestExpiring = transactions.max(by: {
                    $0.expires! != $1.expires! ? $0.expires! < $1.expires! : $0.transactionId.precedesInBytes($1.transactionId)
                }),
                let latestPurchased = transactions.last,
                let renewal = history.renewal(
                    forOriginalTransaction: originalId.text, environment: environment, latestProductId: latestPurchased.productId, asOf: at),
                renewal.isInBillingRetry, let graceEnd = renewal.gracePeriodExpires,
                let expires = latestExpiring.expires, latestExpiring.cancellation(asOf: at) == nil,
                expires <= at, at < graceEnd,
                let product = catalog.product(latestExpiring.productId)
            else { continue }
            var extension_ = interval(latestExpiring, product: product, end: graceEnd, kind: .grace)
            extension_.start = expires
            intervals.append(extension_)
        }
    }

    /// R17: each grant naming the publication that has started by the instant: a span grant is an
    /// interval of its access style from its start to its end (open-ended: never), cut at a
    /// revocation that has happened by the instant; an issue grant gives its issues until revoked.
    mutating func add(_ grants: [Grant]) {
        for grant in grants where grant.start <= at && grant.names(publication.id) {
            let revoked = grant.revocation(asOf: at)
            switch grant.scope {
            case .span(_, let access, let window):
                let end = min(grant.end ?? .distantFuture, revoked ?? .distantFuture)
                guard end > grant.start else { continue }
                if let revoked, revoked < grant.end ?? .distantFuture { revokedSpans.append((grant, access)) }
                intervals.append(
                    Interval(
                        start: grant.start, end: end, kind: .grant, access: access, transactionId: grant.grantId, productId: grant.source,
                        window: access == .streaming ? window : nil))
            case .issues(_, let issueIds):
                if revoked != nil {
                    revokedIssueGrants.append(grant)
                    continue
                }
                for issueId in issueIds {
                    let key = ExactKey(issueId)
                    if let held = grantedIssues[key], (held.start, ExactKey(held.grantId)) <= (grant.start, ExactKey(grant.grantId)) { continue }
                    grantedIssues[key] = grant
                }
            }
        }
    }

    private func interval(_ transaction: Transaction, product: Product, end: Instant, kind: IntervalKind) -> Interval {
        Interval(
            start: transaction.purchase, end: end, kind: kind, access: product.access,
            transactionId: transaction.transactionId, productId: product.productId, window: product.window)
    }

    private mutating func refund(_ transaction: Transaction, at instant: Instant, start: Instant, end: Instant, issueId: String? = nil) {
        let type = transaction.countedRevocationType
        refunded.append(
            RefundedPurchase(
                transactionId: transaction.transactionId, productId: transaction.productId, refundedAt: instant,
                start: start, end: end, issueId: issueId, revocationType: type,
                revocationPercentage: type == nil ? nil : transaction.revocationPercentage))
    }
}
