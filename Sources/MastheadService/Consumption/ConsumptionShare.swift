import Masthead

/// How much of what a transaction made readable the reader was served: the
/// `consumptionPercentage` of Send Consumption Information.
///
/// The issues a transaction makes readable are decided as of the request, or as of the last
/// instant the transaction paid for when that is earlier (its latest interval's end less one
/// millisecond): the issues then readable, in every publication of the catalog, with a reason
/// that names the transaction —
/// - published during an archive period, inside an interval of that transaction (R11);
/// - unlocked at the start of an archive period whose first interval is that transaction's (R11);
/// - streaming, in a period where an interval of that transaction covers the as-of instant (R12);
/// - bought on its own by that transaction (R13).
/// Free issues name no transaction and never count.
struct ConsumptionShare: Equatable, Sendable {
    /// Issues readable through the transaction.
    var readable: Int
    /// Of those, the issues the reader was served (the download check answered them readable).
    var served: Int

    /// `served ÷ readable` in milliunits (100000 is 100 %), rounded down; nil when the transaction
    /// made nothing readable.
    var milliunits: Int32? {
        guard readable > 0 else { return nil }
        return Int32(Int64(served) * 100_000 / Int64(readable))
    }

    /// The share of `transactionId` for the reader of `history`, served `served` (publication and issue ids).
    init(
        transactionId: String, history: PurchaseHistory, catalog: Catalog, environment: Environment, at now: Instant,
        served: Set<ServedKey>
    ) {
        let engine = EntitlementEngine(catalog: catalog)
        var paidUntil: Instant?
        for publication in catalog.publications {
            let entitlement = engine.evaluate(history, publication: publication, at: now, environment: environment)
            for period in entitlement.periods {
                for interval in period.intervals where interval.kind != .grant && interval.transactionId.sameBytes(as: transactionId) {
                    paidUntil = max(paidUntil ?? interval.end, interval.end)
                }
            }
        }
        let asOf = paidUntil.map { $0 <= now ? $0.adding(milliseconds: -1) : now } ?? now
        var readable = 0
        var servedCount = 0
        for publication in catalog.publications {
            let entitlement = engine.evaluate(history, publication: publication, at: asOf, environment: environment)
            for entry in entitlement.readable
            where entry.reasons.contains(where: { ConsumptionShare.names(transactionId, $0, entry.issue, entitlement) }) {
                readable += 1
                if served.contains(ServedKey(publicationId: publication.id, issueId: entry.issue.id)) { servedCount += 1 }
            }
        }
        self.readable = readable
        self.served = servedCount
    }

    /// Creates a share from its counts.
    init(readable: Int, served: Int) {
        self.readable = readable
        self.served = served
    }

    /// Whether `reason` makes `issue` readable through `transactionId` (see the type's description).
    static func names(_ transactionId: String, _ reason: AccessReason, _ issue: Issue, _ entitlement: PublicationEntitlement) -> Bool {
        func intervals(_ period: Int) -> [Interval] {
            // A grant's interval carries its grant id there (R17): never a transaction's.
            entitlement.periods.indices.contains(period)
                ? entitlement.periods[period].intervals.filter { $0.kind != .grant && $0.transactionId.sameBytes(as: transactionId) } : []
        }
        switch reason {
        case .publishedDuringPeriod(let period): return intervals(period).contains { $0.contains(issue.published) }
        case .unlockedAtPeriodStart(let period):
            guard entitlement.periods.indices.contains(period) else { return false }
            let start = entitlement.periods[period].start
            return entitlement.periods[period].intervals.contains {
                $0.start == start && $0.kind != .grant && $0.transactionId.sameBytes(as: transactionId)
            }
        case .streaming(let period, _): return intervals(period).contains { $0.contains(entitlement.at) }
        case .singlePurchase(let id): return id.sameBytes(as: transactionId)
        case .granted, .free: return false
        }
    }

    /// A served issue's publication and issue ids, compared by their bytes.
    struct ServedKey: Hashable, Sendable {
        var publication: ExactKey
        var issue: ExactKey

        init(publicationId: String, issueId: String) {
            publication = ExactKey(publicationId)
            issue = ExactKey(issueId)
        }
    }
}
