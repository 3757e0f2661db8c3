public import Masthead
public import MastheadReports

extension AuditResult {
    /// The HTML report's content: the inputs, the totals, the states and products per instant,
    /// the lines' access by source (App Store purchases, publisher grants) and the grants by
    /// source, and with what was served (`--grants`) the findings per kind and product and the
    /// lines listed for each group (about ``AuditConfiguration/reportedLines`` shared among the groups, at least
    /// ``AuditConfiguration/reportedLinesPerGroup`` each).
    /// - Parameters:
    ///   - catalogPath: the catalog as the caller named it.
    ///   - generated: when the audit ran.
    ///   - version: the version of masthead that ran it.
    public func reportContent(catalogPath: String, generated: Instant, version: String) -> AuditReportPage.Content {
        let instants = configuration.instants
        var inputs: [(label: String, value: String)] = [("catalog", catalogPath)]
        switch configuration.source {
        case .receipts(let path): inputs.append(("receipts", path))
        case .database(let path): inputs.append(("database", path))
        }
        if let grantsPath = configuration.grantsPath { inputs.append(("grants", grantsPath)) }
        if let shard = configuration.shard { inputs.append(("shard", "\(shard.description) (users whose id hashes to it)")) }
        inputs.append(("as of", instants.map(\.description).joined(separator: ", ")))
        inputs.append(("environment", configuration.environment.rawValue))
        if summary.signedLines > 0 || !summary.signaturesVerified { inputs.append(("signed data", summary.signedDataText)) }
        var totals: [(label: String, value: Int)] = [("lines read", summary.lines)]
        if configuration.shard != nil { totals.append(("lines of other shards", summary.otherShardLines)) }
        totals += [
            ("users", summary.users), ("rejected lines", summary.rejectedLines),
            ("transactions of unknown products", summary.unknownProductTransactions), ("(user, publication) lines", summary.outputLines),
        ]
        if configuration.grantsPath != nil {
            totals += [
                ("grants of users without a receipt line", summary.unknownGrantUsers), ("grants of unknown publications", summary.unknownGrantPublications),
                ("grants of unknown issues", summary.unknownGrantIssues),
            ]
            if configuration.shard != nil { totals.append(("grants of other shards", summary.otherShardGrants)) }
        }
        let products = summary.products.map { product in
            (product, summary.byProduct.map { counts in
                let count = counts[ExactKey(product)] ?? AuditSummary.ProductCount()
                return (count.entitled, count.lines)
            })
        }
        return AuditReportPage.Content(
            inputs: inputs, generated: generated, version: version, totals: totals, instants: instants, states: summary.byInstant,
            products: products, productRule: AuditSummary.productRule,
            accessSources: summary.byAccessSource.map { ($0.appStoreOnly, $0.grantsOnly, $0.both) },
            grantsBySource: summary.grantSources.map { ($0, summary.grantsBySource[ExactKey($0)] ?? 0) }, reconciliation: configuration.grantsPath == nil ? nil : reconciliation,
            unplacedGrants: grantMessages)
    }

    /// The findings per kind and product, and per instant, kind, then product (worst first) the
    /// group's share of the listed lines.
    private var reconciliation: AuditReportPage.Reconciliation {
        let instants = configuration.instants
        let counts = GrantFinding.allCases.map { kind in
            (kind.presentation, summary.total(kind), summary.products(with: kind).map { ($0, summary.counts(kind, product: $0)) })
        }
        var keys: [FindingListing.Key] = []
        for instant in instants.indices {
            for kind in GrantFinding.allCases {
                for product in summary.products(with: kind) where summary.counts(kind, product: product)[instant] > 0 {
                    keys.append(FindingListing.Key(instant: instant, kind: kind, product: ExactKey(product)))
                }
            }
        }
        let share = max(AuditConfiguration.reportedLinesPerGroup, AuditConfiguration.reportedLines / max(1, keys.count))
        let listed = keys.map { key in
            AuditReportPage.ListedGroup(
                at: instants[key.instant], kind: key.kind.presentation, product: key.product.text,
                total: summary.counts(key.kind, product: key.product.text)[key.instant],
                lines: (listing.groups[key] ?? []).prefix(share).map {
                    AuditReportPage.ListedLine(userId: $0.userId, publication: $0.publication, issues: $0.issues)
                })
        }
        return AuditReportPage.Reconciliation(counts: counts, listed: listed)
    }
}
