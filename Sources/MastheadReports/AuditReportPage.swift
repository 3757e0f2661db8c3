public import Masthead

/// One self-contained HTML page about an audit: how it ran, the counts per as-of instant (a chart
/// of statuses and its table), the counts per product, and the reconciliation's findings by kind
/// and product, worst first. No script, no stylesheet or font fetched from anywhere. Counts of
/// different instants are shown side by side, never added together.
public struct AuditReportPage {
    /// A kind of finding as the page shows it; what the kinds are, and which are discrepancies,
    /// is the audit's to decide.
    public struct FindingKind: Hashable, Sendable {
        /// The name in code, for the page's `class` attributes (`overGranted`).
        public var name: String
        /// The name in words, for headings.
        public var title: String
        /// What it means, in one sentence for a publisher.
        public var meaning: String

        /// Creates a kind of finding.
        public init(name: String, title: String, meaning: String) {
            self.name = name
            self.title = title
            self.meaning = meaning
        }
    }

    /// One (user, publication) line with findings of one kind at one instant.
    public struct ListedLine: Sendable {
        public var userId: String
        public var publication: String
        /// The issues, each with the reason in words.
        public var issues: [(issue: String, detail: String)]

        /// Creates a listed line.
        public init(userId: String, publication: String, issues: [(issue: String, detail: String)]) {
            self.userId = userId
            self.publication = publication
            self.issues = issues
        }
    }

    /// The lines listed for one instant, kind and product.
    public struct ListedGroup: Sendable {
        public var at: Instant
        public var kind: FindingKind
        public var product: String
        /// The issues of this kind on lines of this product at the instant, listed or not.
        public var total: Int
        /// The lines with the most issues first.
        public var lines: [ListedLine]

        /// Creates a listed group.
        public init(at: Instant, kind: FindingKind, product: String, total: Int, lines: [ListedLine]) {
            self.at = at
            self.kind = kind
            self.product = product
            self.total = total
            self.lines = lines
        }
    }

    /// What reconciling grants found.
    public struct Reconciliation: Sendable {
        /// Per kind, every kind in the order to show: the issues at each instant, and per product
        /// (worst first) the same.
        public var counts: [(kind: FindingKind, total: [Int], products: [(product: String, counts: [Int])])]
        /// The listed lines, per instant, kind and product, in the order to show.
        public var listed: [ListedGroup]

        /// Creates a reconciliation.
        public init(counts: [(kind: FindingKind, total: [Int], products: [(product: String, counts: [Int])])], listed: [ListedGroup]) {
            self.counts = counts
            self.listed = listed
        }
    }

    /// What the page shows.
    public struct Content: Sendable {
        /// Where the audit's inputs came from and how it ran, as (label, value) rows.
        public var inputs: [(label: String, value: String)]
        /// When the audit ran.
        public var generated: Instant
        /// The version of masthead that ran it.
        public var version: String
        /// Counts that do not depend on the as-of instant, as (label, count) rows.
        public var totals: [(label: String, value: Int)]
        /// The as-of instants, in order.
        public var instants: [Instant]
        /// Per instant, the (user, publication) lines in each state.
        public var states: [[SubscriptionState: Int]]
        /// Per product: per instant, how many lines are entitled and how many there are.
        public var products: [(product: String, counts: [(entitled: Int, lines: Int)])]
        /// Which product a line counts under, in words.
        public var productRule: String
        /// Per instant, the lines with access from App Store purchases only, from the publisher's
        /// grants only (R17), and from both.
        public var accessSources: [(appStoreOnly: Int, grantsOnly: Int, both: Int)]
        /// The publisher's grants the users hold, per source (`print`, `comp`, …), in order.
        public var grantsBySource: [(source: String, grants: Int)]
        /// The findings; nil when no grants were reconciled.
        public var reconciliation: Reconciliation?
        /// The grants the audit could not place (unknown publications and issues, users without a
        /// receipt line), one message each, `FILE:LINE: …`.
        public var unplacedGrants: [String]

        /// Creates the content of a page.
        public init(
            inputs: [(label: String, value: String)], generated: Instant, version: String, totals: [(label: String, value: Int)],
            instants: [Instant], states: [[SubscriptionState: Int]], products: [(product: String, counts: [(entitled: Int, lines: Int)])],
            productRule: String, accessSources: [(appStoreOnly: Int, grantsOnly: Int, both: Int)] = [],
            grantsBySource: [(source: String, grants: Int)] = [], reconciliation: Reconciliation?, unplacedGrants: [String] = []
        ) {
            self.inputs = inputs
            self.generated = generated
            self.version = version
            self.totals = totals
            self.instants = instants
            self.states = states
            self.products = products
            self.productRule = productRule
            self.accessSources = accessSources
            self.grantsBySource = grantsBySource
            self.reconciliation = reconciliation
            self.unplacedGrants = unplacedGrants
        }
    }

    /// The HTML document.
    public let html: String

    /// Lays the page out.
    public init(_ content: Content) {
        var page = Markup()
        let number = Markup.thousands
        let columns = content.instants.map { "as of \($0)" }
        page.raw("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Entitlement audit</title><style>\(Self.css)</style></head><body>\n")
        page.element("h1", [], content: "Entitlement audit")
        page.element("p", [("class", "meta")], content: "Generated \(content.generated) by masthead \(content.version). All times are UTC.")
        page.element("h2", [], content: "Inputs")
        Self.table(
            rows: content.inputs.map { [$0.label, $0.value] } + [["generated", content.generated.description], ["masthead", content.version]],
            header: nil, into: &page, tableClass: "pairs")
        page.element("h2", [], content: "Totals")
        Self.table(rows: content.totals.map { [$0.label, number($0.value)] }, header: nil, into: &page, tableClass: "pairs counts")
        page.element("h2", [], content: "Lines by status, per as-of instant")
        page.element("p", [("class", "note")], content: "Each (user, publication) line is counted once per instant.")
        let chart = StatusChart(instants: content.instants, states: content.states)
        page.raw(chart.svg)
        var stateRows = SubscriptionState.allCases.map { state in [state.rawValue] + content.states.map { number($0[state] ?? 0) } }
        stateRows.append(["total"] + content.states.map { number($0.values.reduce(0, +)) })
        Self.table(rows: stateRows, header: ["status"] + columns, into: &page, tableClass: "counts")
        Self.meanings(Self.stateMeanings, into: &page)
        page.element("h2", [], content: "Per product (entitled / lines), per as-of instant")
        page.element("p", [("class", "note")], content: "Which product a line counts under: \(content.productRule). Entitled means active or in a billing grace period.")
        Self.meanings(Self.productMeanings, into: &page)
        Self.table(
            rows: content.products.map { [$0.product] + $0.counts.map { "\(number($0.entitled)) / \(number($0.lines))" } },
            header: ["product"] + columns, into: &page, tableClass: "counts")
        if !content.accessSources.isEmpty {
            page.element("h2", [], content: "Access from App Store purchases and publisher grants, per as-of instant")
            page.element("p", [("class", "note")], content: Self.accessSourcesNote)
            Self.table(
                rows: [
                    ["App Store only"] + content.accessSources.map { number($0.appStoreOnly) },
                    ["publisher grants only"] + content.accessSources.map { number($0.grantsOnly) },
                    ["both"] + content.accessSources.map { number($0.both) },
                ],
                header: ["lines with access from"] + columns, into: &page, tableClass: "counts access")
        }
        if !content.grantsBySource.isEmpty {
            page.element("h3", [], content: "Publisher grants by source")
            page.element("p", [("class", "note")], content: "The grants the audited users hold, revoked ones included, each once.")
            Self.table(
                rows: content.grantsBySource.map { ["\(Grant.words(forSource: $0.source)) (\($0.source))", number($0.grants)] },
                header: ["source", "grants"], into: &page, tableClass: "counts grant-sources")
        }
        page.element("h2", [], content: "Reconciliation with what was served (--grants), per as-of instant")
        if let reconciliation = content.reconciliation {
            page.open("ul", [("class", "kinds")])
            for kind in reconciliation.counts.map(\.kind) {
                page.open("li")
                page.element("strong", [], content: kind.title)
                page.content(": " + kind.meaning)
                page.close("li")
            }
            page.close("ul")
            page.element("p", [("class", "note")], content: "Issues found, by the product of their line (worst first, by the count at the last instant).")
            var rows: [[String]] = []
            var classes: [String] = []
            for (kind, total, products) in reconciliation.counts {
                rows.append([kind.title] + total.map(number))
                classes.append("kind \(kind.name)")
                for (product, counts) in products {
                    rows.append([product] + counts.map(number))
                    classes.append("product \(kind.name)")
                }
            }
            Self.table(rows: rows, header: ["issues"] + columns, into: &page, tableClass: "counts findings", rowClasses: classes)
            page.element("h3", [], content: "Lines with findings")
            page.element("p", [("class", "note")], content: """
                Per as-of instant, kind and product in the order above: the lines with the most issues first; the audit's output \
                (JSON lines or CSV) holds every one.
                """)
            for group in reconciliation.listed {
                let listedIssues = group.lines.map(\.issues.count).reduce(0, +)
                page.open("h4", [("class", group.kind.name)])
                page.content("As of \(group.at): \(group.kind.title), \(group.product) — \(number(group.total)) issue\(group.total == 1 ? "" : "s")")
                if listedIssues < group.total { page.element("span", [("class", "note")], content: " (\(number(listedIssues)) listed)") }
                page.close("h4")
                Self.table(
                    rows: group.lines.map { line in
                        [line.userId, line.publication, line.issues.map { "\($0.issue): \($0.detail)" }.joined(separator: "\n")]
                    },
                    header: ["user", "publication", "issues"], into: &page, tableClass: "lines \(group.kind.name)")
            }
            if !content.unplacedGrants.isEmpty {
                page.element("h3", [], content: "Grants the audit could not place")
                page.element("p", [("class", "note")], content: """
                    A grant of a publication or issue the catalog does not have is a discrepancy (--fail-on-discrepancy exits 2); \
                    grants of users without a receipt line are not reconciled.
                    """)
                let shown = content.unplacedGrants.prefix(AuditReportPage.unplacedGrantsShown)
                page.open("ul", [("class", "unplaced")])
                for message in shown { page.element("li", [], content: message) }
                page.close("ul")
                if shown.count < content.unplacedGrants.count {
                    page.element("p", [("class", "note")], content: "\(number(content.unplacedGrants.count - shown.count)) more on the audit's standard error.")
                }
            }
        } else {
            page.element("p", [("class", "note")], content: "No grants were given (--grants FILE), so nothing was reconciled.")
        }
        page.raw("</body></html>\n")
        html = page.text
    }

    /// How a line's access is credited to App Store purchases and publisher grants, in words.
    static let accessSourcesNote = """
        A line has access when it may read an issue that is not free, or it is active or in a grace period. Each readable issue \
        is credited to the time it rests on (the interval holding its publish instant, the purchase that unlocked it, the \
        streaming time now), an issue grant's issue to grants, an issue bought on its own to the App Store; the time covering \
        the instant likewise.
        """

    /// Grants the audit could not place listed at most.
    static let unplacedGrantsShown = 1000

    /// What each status means.
    static let stateMeanings: [(term: String, meaning: String)] = [
        ("active", "a subscription, pass or free product covers the instant"),
        ("gracePeriod", "the latest renewal failed and the App Store's billing grace period covers the instant: still entitled"),
        ("billingRetry", "nothing covers the instant; the latest subscription expired less than 60 days before and the App Store is still retrying the payment"),
        ("expired", "the reader had a subscription, pass or free product, and none covers the instant"),
        ("none", "no subscription, pass or free product counts by the instant: never subscribed by then, only refunded purchases, "
            + "or only issues bought on their own"),
    ]

    /// What the product names that are not App Store products mean.
    static let productMeanings: [(term: String, meaning: String)] = [
        ("(single issues)", "the line's only purchases are issues bought on their own"),
        ("(none)", "nothing the reader bought grants the publication by the instant (every purchase refunded or not started yet, "
            + "or the publication was only served, per the grants)"),
    ]

    /// A definition list of `terms`.
    private static func meanings(_ terms: [(term: String, meaning: String)], into page: inout Markup) {
        page.open("dl", [("class", "meanings")])
        for (term, meaning) in terms {
            page.element("dt", [], content: term)
            page.element("dd", [], content: meaning)
        }
        page.close("dl")
        page.raw("\n")
    }

    private static func table(
        rows: [[String]], header: [String]?, into page: inout Markup, tableClass: String, rowClasses: [String]? = nil
    ) {
        page.open("table", [("class", tableClass)])
        if let header {
            page.open("thead")
            page.open("tr")
            for cell in header { page.element("th", [], content: cell) }
            page.close("tr")
            page.close("thead")
        }
        page.open("tbody")
        for (index, row) in rows.enumerated() {
            page.open("tr", rowClasses.map { [("class", $0[index])] } ?? [])
            for cell in row { page.element("td", [], content: cell) }
            page.close("tr")
        }
        page.close("tbody")
        page.close("table")
        page.raw("\n")
    }

    private static let css = """
        body{font-family:DejaVu Sans,Helvetica,Arial,sans-serif;margin:24px 32px;color:#222;max-width:1200px}\
        h1{font-size:24px;margin-bottom:4px}h2{font-size:18px;margin-top:30px;border-bottom:1px solid #ddd;padding-bottom:4px}\
        h3{font-size:16px}h4{font-size:14px;margin:18px 0 4px}h4.overGranted{color:#a8321e}h4.underGranted{color:#1f5fa8}\
        h4.heldAfterEntitlementEnded{color:#6b5a00}.meta{color:#555;margin-top:0}\
        table{border-collapse:collapse;font-size:14px;margin:8px 0}td,th{border:1px solid #ddd;padding:4px 10px;text-align:left;vertical-align:top}\
        th{background:#f3f5f8}table.counts td:not(:first-child){text-align:right;font-variant-numeric:tabular-nums}\
        table.pairs td:first-child{color:#555}tr.kind td{font-weight:bold;background:#fafafa}tr.product td:first-child{padding-left:28px}\
        table.lines td:first-child{white-space:nowrap}table.lines td:last-child{white-space:pre-line}ul.kinds{font-size:14px}.note{color:#666;font-size:13px}\
        svg.status-chart{display:block;margin:8px 0}\
        dl.meanings{font-size:13px;color:#444;display:grid;grid-template-columns:max-content auto;gap:2px 12px;margin:6px 0 12px}\
        dl.meanings dt{font-weight:bold}dl.meanings dd{margin:0}ul.unplaced{font-size:13px}
        """
}
