import Masthead

/// The counts an audit reports at the end: per as-of instant, per state and per product.
struct AuditSummary {
    /// How many (user, publication) lines have a product as their current one, and how many of
    /// those are entitled (active or in a grace period) at the instant.
    struct ProductCount: Equatable {
        var lines = 0
        var entitled = 0
    }

    var lines = 0
    var users = 0
    var rejectedLines = 0
    var unknownProductTransactions = 0
    var outputLines = 0
    /// The as-of instants, in order.
    var instants: [Instant]
    /// Per as-of instant (in order): the count of (user, publication) lines in each state.
    var byInstant: [[SubscriptionState: Int]]
    /// Per as-of instant (in order): the counts per product, keyed by ``productKey(_:)``.
    var byProduct: [[String: ProductCount]]
    /// Whether grants were reconciled (their lines then always appear in the summary).
    var reconciled = false
    /// Per as-of instant (in order): over- and under-granted issues found by reconciliation.
    var overGrantedByInstant: [Int]
    var underGrantedByInstant: [Int]
    var unknownGrantUsers = 0
    var unknownGrantPublications = 0
    var unknownGrantIssues = 0

    init(instants: [Instant]) {
        self.instants = instants
        byInstant = Array(repeating: [:], count: instants.count)
        byProduct = Array(repeating: [:], count: instants.count)
        overGrantedByInstant = Array(repeating: 0, count: instants.count)
        underGrantedByInstant = Array(repeating: 0, count: instants.count)
    }

    /// Over-granted issues over every instant.
    var overGranted: Int { overGrantedByInstant.reduce(0, +) }
    /// Under-granted issues over every instant.
    var underGranted: Int { underGrantedByInstant.reduce(0, +) }

    /// Discrepancies found by reconciliation.
    var discrepancies: Int { overGranted + underGranted }

    /// The product a (user, publication) line is counted under: the latest auto-renewable one,
    /// else the non-renewing or free product whose interval covers (or last covered) the instant;
    /// `(single issues)` when only issue purchases grant it, `(none)` when nothing does.
    static func productKey(_ entitlement: PublicationEntitlement) -> String {
        if let product = entitlement.status.currentProductId { return product }
        var latest: Interval?
        for period in entitlement.periods {
            for interval in period.intervals where interval.start <= entitlement.at {
                if interval.contains(entitlement.at) { return interval.productId }
                if latest.map({ interval.end > $0.end }) ?? true { latest = interval }
            }
        }
        if let latest { return latest.productId }
        if entitlement.readable.contains(where: { if case .singlePurchase = $0.reasons[0] { true } else { false } }) { return "(single issues)" }
        return "(none)"
    }

    mutating func record(_ entitlements: UserEntitlements, instant index: Int) {
        if index == 0 {
            users += 1
            unknownProductTransactions += entitlements.unknownTransactionCount
            outputLines += entitlements.publications.count
        }
        for publication in entitlements.publications {
            let state = publication.status.state
            byInstant[index][state, default: 0] += 1
            let key = Self.productKey(publication)
            byProduct[index][key, default: ProductCount()].lines += 1
            if state == .active || state == .gracePeriod { byProduct[index][key, default: ProductCount()].entitled += 1 }
        }
    }

    /// The counts of two parts of one audit together.
    func adding(_ other: AuditSummary) -> AuditSummary {
        var total = self
        total.lines += other.lines
        total.users += other.users
        total.rejectedLines += other.rejectedLines
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
        for index in other.overGrantedByInstant.indices {
            total.overGrantedByInstant[index] += other.overGrantedByInstant[index]
            total.underGrantedByInstant[index] += other.underGrantedByInstant[index]
        }
        total.unknownGrantUsers += other.unknownGrantUsers
        total.unknownGrantPublications += other.unknownGrantPublications
        total.unknownGrantIssues += other.unknownGrantIssues
        return total
    }

    /// The products met, in name order.
    var products: [String] { Set(byProduct.flatMap(\.keys)).sorted() }

    /// The summary as an aligned table for standard error.
    var rendered: String {
        let labelWidth = max(24, products.map { $0.count + 6 }.max() ?? 0)
        let columnWidth = 26
        func row(_ label: String, _ cells: [String]) -> String {
            String((label.padding(labelWidth) + cells.map { $0.padding(columnWidth) }.joined()).reversed().drop { $0 == " " }.reversed()) + "\n"
        }
        var text = "audit summary\n"
        text += row("  lines read", [String(lines)])
        text += row("  users", [String(users)])
        text += row("  rejected lines", [String(rejectedLines)])
        text += row("  unknown products", ["\(unknownProductTransactions) transaction(s)"])
        text += row("  (user, publication)", [String(outputLines)])
        text += row("  as of", instants.map(\.description))
        text += "  by status\n"
        for state in SubscriptionState.allCases {
            text += row("    \(state.rawValue)", byInstant.map { String($0[state] ?? 0) })
        }
        text += "  by product (entitled / lines)\n"
        for product in products {
            text += row("    \(product)", byProduct.map { count in
                let count = count[product] ?? ProductCount()
                return "\(count.entitled) / \(count.lines)"
            })
        }
        if overGranted + underGranted + unknownGrantUsers + unknownGrantPublications + unknownGrantIssues > 0 || reconciled {
            text += "  discrepancies\n"
            text += row("    overGranted", overGrantedByInstant.map(String.init))
            text += row("    underGranted", underGrantedByInstant.map(String.init))
            text += row("    unknown grants", ["users \(unknownGrantUsers), publications \(unknownGrantPublications), issues \(unknownGrantIssues)"])
        }
        return text
    }
}

extension String {
    func padding(_ width: Int) -> String { self + String(repeating: " ", count: Swift.max(0, width - count)) }
}
