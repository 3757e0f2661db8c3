public import Masthead

/// The counts an audit reports at the end: per as-of instant, per state, per product and per
/// reconciliation finding. Counts of different instants are never added together.
public struct AuditSummary: Sendable {
    /// How many (user, publication) lines have a product as their current one, and how many of
    /// those are entitled (active or in a grace period) at the instant.
    public struct ProductCount: Equatable, Sendable {
        public internal(set) var lines = 0
        public internal(set) var entitled = 0
    }

    /// How many (user, publication) lines have access at an instant from App Store purchases
    /// only, from the publisher's grants only (R17), and from both (see ``accessSources(_:)``).
    public struct AccessCount: Equatable, Sendable {
        public internal(set) var appStoreOnly = 0
        public internal(set) var grantsOnly = 0
        public internal(set) var both = 0
    }

    /// A reconciliation finding counted under the product of its line (the product id's exact bytes).
    public struct FindingKey: Hashable, Sendable {
        public var kind: GrantFinding
        public var product: String

        public static func == (lhs: FindingKey, rhs: FindingKey) -> Bool { lhs.kind == rhs.kind && lhs.product.sameBytes(as: rhs.product) }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(kind)
            hasher.combine(ExactKey(product))
        }
    }

    /// How the product of a line is chosen, in words.
    public static let productRule =
        "a line counts under its latest auto-renewable product, else the pass or free product that covers (or last covered) the instant, else (single issues) or (none)"

    /// Lines of this audit's shard read (all non-blank lines without a shard).
    public internal(set) var lines = 0
    /// Users decided (lines or database users not rejected).
    public internal(set) var users = 0
    /// Lines that could not be used (reported, nothing written for them).
    public internal(set) var rejectedLines = 0
    /// Receipts lines (or database users) of other shards, skipped.
    public internal(set) var otherShardLines = 0
    /// Users decided from signed data (`signedTransactions`, `signedRenewalInfos`) rather than a receipt.
    public internal(set) var signedLines = 0
    /// Whether the signatures of signed lines were verified; false when the audit trusted them as
    /// verified when the publisher's store took them in.
    public internal(set) var signaturesVerified = true
    /// Transactions of products the catalog does not know (they grant nothing).
    public internal(set) var unknownProductTransactions = 0
    /// (user, publication) lines written.
    public internal(set) var outputLines = 0
    /// The as-of instants, in order.
    public internal(set) var instants: [Instant]
    /// Per as-of instant (in order): the count of (user, publication) lines in each state.
    public internal(set) var byInstant: [[SubscriptionState: Int]]
    /// Per as-of instant (in order): the counts per product, keyed by ``productKey(_:)`` (its exact bytes).
    public internal(set) var byProduct: [[ExactKey: ProductCount]]
    /// Per as-of instant (in order): the lines with access by where it comes from.
    public internal(set) var byAccessSource: [AccessCount]
    /// The publisher's grants (R17) the users decided hold, per source (`print`, `comp`, …; the
    /// source's exact bytes), revoked ones included: each grant once, whatever the instants.
    public internal(set) var grantsBySource: [ExactKey: Int] = [:]
    /// Whether grants were reconciled (their lines then always appear in the summary).
    public internal(set) var reconciled = false
    /// The shard audited, if any.
    public internal(set) var shard: Shard?
    /// Per as-of instant (in order): issues found by reconciliation, per kind and product.
    public internal(set) var findings: [[FindingKey: Int]]
    /// Grants of users without a receipts line (or database user), not reconciled.
    public internal(set) var unknownGrantUsers = 0
    /// Grants naming a publication the catalog does not have.
    public internal(set) var unknownGrantPublications = 0
    /// Grants naming an issue the publication does not have.
    public internal(set) var unknownGrantIssues = 0
    /// Grants of users of other shards, left out.
    public internal(set) var otherShardGrants = 0

    /// An empty summary of an audit at `instants`.
    init(instants: [Instant]) {
        self.instants = instants
        byInstant = Array(repeating: [:], count: instants.count)
        byProduct = Array(repeating: [:], count: instants.count)
        byAccessSource = Array(repeating: AccessCount(), count: instants.count)
        findings = Array(repeating: [:], count: instants.count)
    }

    /// Adds `count` issues of a kind found on a line of `product` at instant number `instant`.
    mutating func count(_ kind: GrantFinding, product: String, instant: Int, _ count: Int) {
        if count > 0 { findings[instant][FindingKey(kind: kind, product: product), default: 0] += count }
    }

    /// The issues of a kind found at each instant.
    public func total(_ kind: GrantFinding) -> [Int] {
        findings.map { counts in counts.reduce(0) { $0 + ($1.key.kind == kind ? $1.value : 0) } }
    }

    /// The issues of a kind on lines of a product, at each instant.
    public func counts(_ kind: GrantFinding, product: String) -> [Int] {
        findings.map { $0[FindingKey(kind: kind, product: product)] ?? 0 }
    }

    /// The products with findings of a kind, worst first: most at the last instant, then most at
    /// any instant, then by name.
    public func products(with kind: GrantFinding) -> [String] {
        let products = Set(findings.flatMap { $0.keys.filter { $0.kind == kind }.map { ExactKey($0.product) } })
        return products.map { (product: $0, counts: counts(kind, product: $0.text)) }
            .sorted { ($1.counts.last ?? 0, $1.counts.max() ?? 0, $0.product) < ($0.counts.last ?? 0, $0.counts.max() ?? 0, $1.product) }
            .map(\.product.text)
    }

    /// Whether any over- or under-granted issue was found, at any instant, or a grant names a
    /// publication or issue the catalog does not have (something was served that the audit
    /// cannot account for).
    public var hasDiscrepancy: Bool {
        unknownGrantPublications + unknownGrantIssues > 0 || findings.contains { $0.contains { $0.key.kind.isDiscrepancy && $0.value > 0 } }
    }

    /// The product a (user, publication) line is counted under: the latest auto-renewable one,
    /// else the non-renewing or free product whose interval covers (or last covered) the instant;
    /// `(grant SOURCE)` when only the publisher's span grant of that source covers (or last
    /// covered) it (R17), so that a lapsed subscription's product never counts a reader a grant
    /// keeps; `(single issues)` when only issue purchases grant it, `(none)` when nothing does.
    public static func productKey(_ entitlement: PublicationEntitlement) -> String {
        func key(_ interval: Interval) -> String { interval.kind == .grant ? "(grant \(interval.productId))" : interval.productId }
        if let source = entitlement.status.grantSource,
            !entitlement.periods.contains(where: { $0.intervals.contains { $0.kind != .grant && $0.contains(entitlement.at) } })
        {
            return "(grant \(source))"
        }
        if let product = entitlement.status.currentProductId { return product }
        var latest: Interval?
        for period in entitlement.periods {
            for interval in period.intervals where interval.start <= entitlement.at {
                if interval.contains(entitlement.at) { return key(interval) }
                if latest.map({ interval.end > $0.end }) ?? true { latest = interval }
            }
        }
        if let latest { return key(latest) }
        if entitlement.readable.contains(where: { if case .singlePurchase = $0.reasons[0] { true } else { false } }) { return "(single issues)" }
        return "(none)"
    }

    /// Where a line's access at its instant comes from: App Store purchases, the publisher's
    /// grants (R17), both, or neither (no access). A line has access when a readable issue is
    /// not a free one, or it is entitled (active or in a grace period: paid or granted time covers
    /// the instant). Each is credited to the intervals it rests on, a grant's
    /// (``IntervalKind/grant``) to grants and any other to the App Store: an issue published
    /// during a period to the period's intervals holding its publish instant, an issue unlocked at
    /// a period's start to the intervals starting then, streaming and the time covering the
    /// instant to the intervals holding the instant (the whole period when none does); an issue
    /// grant's issue to grants, a single purchase to the App Store. Free issues count for neither.
    public static func accessSources(_ entitlement: PublicationEntitlement) -> (appStore: Bool, grants: Bool) {
        var appStore = false
        var grants = false
        func credit(_ period: Int, where rests: (Interval) -> Bool) {
            let intervals = entitlement.periods[period].intervals
            let resting = intervals.filter(rests)
            for interval in resting.isEmpty ? intervals : resting {
                if interval.kind == .grant { grants = true } else { appStore = true }
            }
        }
        for entry in entitlement.readable where !entry.issue.isFree {
            for reason in entry.reasons {
                switch reason {
                case .publishedDuringPeriod(let period): credit(period) { $0.contains(entry.issue.published) }
                case .unlockedAtPeriodStart(let period): credit(period) { $0.start == entitlement.periods[period].start }
                case .streaming(let period, _): credit(period) { $0.contains(entitlement.at) }
                case .singlePurchase: appStore = true
                case .granted: grants = true
                case .free: break
                }
            }
            if appStore && grants { return (true, true) }
        }
        guard Self.isEntitled(entitlement.status.state) else { return (appStore, grants) }
        for period in entitlement.periods.indices where entitlement.periods[period].intervals.contains(where: { $0.contains(entitlement.at) }) {
            credit(period) { $0.contains(entitlement.at) }
        }
        return (appStore, grants)
    }

    /// Whether a line in this state is entitled at its instant: active or in a grace period.
    static func isEntitled(_ state: SubscriptionState) -> Bool { state == .active || state == .gracePeriod }

    /// Counts one user's entitlements at instant number `index` (the user, their lines and their
    /// grants once, at the first). `grants` are the user's grants: without any, a line's access
    /// can only come from the App Store.
    mutating func record(_ entitlements: UserEntitlements, instant index: Int, grants: [Grant]) {
        if index == 0 {
            users += 1
            unknownProductTransactions += entitlements.unknownTransactionCount
            outputLines += entitlements.publications.count
            for grant in grants { grantsBySource[ExactKey(grant.source), default: 0] += 1 }
        }
        for publication in entitlements.publications {
            let state = publication.status.state
            byInstant[index][state, default: 0] += 1
            let key = ExactKey(Self.productKey(publication))
            byProduct[index][key, default: ProductCount()].lines += 1
            if state == .active || state == .gracePeriod { byProduct[index][key, default: ProductCount()].entitled += 1 }
            if grants.isEmpty {
                if Self.isEntitled(state) || publication.readable.contains(where: { !$0.issue.isFree }) {
                    byAccessSource[index].appStoreOnly += 1
                }
            } else {
                switch Self.accessSources(publication) {
                case (true, false): byAccessSource[index].appStoreOnly += 1
                case (false, true): byAccessSource[index].grantsOnly += 1
                case (true, true): byAccessSource[index].both += 1
                case (false, false): break
                }
            }
        }
    }

    /// The counts of two parts of one audit together (the same instants: nothing is added across
    /// instants).
    public func adding(_ other: AuditSummary) -> AuditSummary {
        var total = self
        total.lines += other.lines
        total.users += other.users
        total.rejectedLines += other.rejectedLines
        total.signedLines += other.signedLines
        total.otherShardLines += other.otherShardLines
        total.unknownProductTransactions += other.unknownProductTransactions
        total.outputLines += other.outputLines
        for (index, states) in other.byInstant.enumerated() {
            for (state, count) in states { total.byInstant[index][state, default: 0] += count }
        }
        for (index, products) in other.byProduct.enumerated() {
            for (product, count) in products {
                total.byProduct[index][product, default: ProductCount()].lines += count.lines
                total.byProduct[index][product, default: ProductCount()].entitled += count.entitled
            }
        }
        for (index, count) in other.byAccessSource.enumerated() {
            total.byAccessSource[index].appStoreOnly += count.appStoreOnly
            total.byAccessSource[index].grantsOnly += count.grantsOnly
            total.byAccessSource[index].both += count.both
        }
        for (source, count) in other.grantsBySource { total.grantsBySource[source, default: 0] += count }
        for (index, counts) in other.findings.enumerated() {
            for (key, count) in counts { total.findings[index][key, default: 0] += count }
        }
        total.unknownGrantUsers += other.unknownGrantUsers
        total.unknownGrantPublications += other.unknownGrantPublications
        total.unknownGrantIssues += other.unknownGrantIssues
        total.otherShardGrants += other.otherShardGrants
        return total
    }

    /// The products met, in the order of their ids' bytes.
    public var products: [String] { Set(byProduct.flatMap(\.keys)).sorted().map(\.text) }

    /// The grants' sources met, in the order of their bytes.
    public var grantSources: [String] { grantsBySource.keys.sorted().map(\.text) }

    /// The users decided from signed data, and whether their signatures were verified.
    public var signedDataText: String {
        "\(signedLines) user(s), " + (signaturesVerified ? "every signature verified" : "signatures NOT verified (trusted as verified at ingest)")
    }

    /// The summary as an aligned table for standard error: one column per as-of instant.
    public var rendered: String {
        var rows: [(label: String, cells: [String])] = []
        func row(_ label: String, _ cells: [String] = []) { rows.append((label, cells)) }
        row("audit summary")
        row("  lines read", [String(lines)])
        if let shard {
            row("  shard", [shard.description])
            row("  lines of other shards", [String(otherShardLines)])
        }
        row("  users", [String(users)])
        row("  rejected lines", [String(rejectedLines)])
        if signedLines > 0 || !signaturesVerified { row("  signed data", [signedDataText]) }
        row("  unknown products", ["\(unknownProductTransactions) transaction(s)"])
        row("  (user, publication)", [String(outputLines)])
        row("  as of", instants.map(\.description))
        row("  by status (lines)")
        for state in SubscriptionState.allCases {
            row("    \(state.rawValue)", byInstant.map { String($0[state] ?? 0) })
        }
        row("  by product (entitled / lines; \(Self.productRule))")
        for product in products {
            row("    \(product)", byProduct.map { count in
                let count = count[ExactKey(product)] ?? ProductCount()
                return "\(count.entitled) / \(count.lines)"
            })
        }
        row("  access from (lines)")
        row("    App Store only", byAccessSource.map { String($0.appStoreOnly) })
        row("    grants only", byAccessSource.map { String($0.grantsOnly) })
        row("    both", byAccessSource.map { String($0.both) })
        if !grantsBySource.isEmpty {
            row("  grants by source (held by the users)")
            for source in grantSources { row("    \(source)", [String(grantsBySource[ExactKey(source)] ?? 0)]) }
        }
        let anyFinding = findings.contains { !$0.isEmpty }
        if anyFinding || unknownGrantUsers + unknownGrantPublications + unknownGrantIssues > 0 || reconciled {
            row("  reconciliation (issues per instant, by the product of their line)")
            for kind in GrantFinding.allCases {
                row("    \(kind.rawValue)", total(kind).map(String.init))
                for product in products(with: kind) {
                    row("      \(product)", counts(kind, product: product).map(String.init))
                }
            }
            row("    unknown grants", ["users \(unknownGrantUsers), publications \(unknownGrantPublications), issues \(unknownGrantIssues)"])
            if shard != nil { row("    grants of other shards", [String(otherShardGrants)]) }
        }
        let labelWidth = (rows.filter { !$0.cells.isEmpty }.map(\.label.unicodeScalars.count).max() ?? 0) + 3
        let columnWidth = 26
        return rows.map { label, cells in
            let line = cells.isEmpty ? label : label.padding(labelWidth) + cells.map { $0.padding(columnWidth) }.joined()
            return String(line.reversed().drop { $0 == " " }.reversed()) + "\n"
        }.joined()
    }
}
