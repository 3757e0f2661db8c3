import Masthead
import MastheadFormats
import MastheadJSON

/// `masthead generate`: a synthetic population as audit input, the same bytes for the same seed;
/// optionally what a content system would have served them, with a few mistakes, for demos of
/// `audit --grants`.
struct GenerateCommand {
    static let spec = CommandSpec(
        name: "generate", summary: "Write a synthetic population of receipts as audit input (same seed, same bytes).",
        description: """
            Writes N synthetic users as audit input lines, {"user_id": "user-0", "receipt": {...}}, from
            the catalog's products: renewals that overlap slightly, lapses of hours and months, refunds,
            upgrades, trials, billing retry and grace periods, non-renewing passes, single issues,
            sandbox receipts, and the date and flag shapes real receipts use. The same seed gives the
            same bytes. With --grants, also writes what a content system would have served them, as CSV
            user_id,publication,issue_id,granted_at: every issue readable at one of the --grants-at
            instants (dated when it first became readable) but about 2 % left out, and for about 3 % of
            users one issue served in the six months before the last instant at an hour when they could
            not read it (for audit --grants demos).
            """,
        options: [
            CommonOptions.catalogOption,
            .value("users", "N", "How many users.", required: true),
            .value("seed", "S", "The random seed (default 1)."),
            .value("output", "FILE", "Write here instead of standard output."),
            .value("grants", "FILE", "Also write grants for the users here."),
            .value(
                "grants-at", "INSTANT",
                """
                An instant the grants describe, RFC 3339 (default: now); repeat it
                for the instants of an audit series.
                """, repeatable: true),
        ])
    let catalogPath: String
    let users: Int
    let seed: UInt64
    let outputPath: String?
    let grantsPath: String?
    /// The instants the generated grants describe (what was served by each).
    let grantsAt: [Instant]

    init(_ arguments: [String], now: Instant) throws(CLIError) {
        let parsed = try Arguments(arguments, spec: Self.spec)
        catalogPath = parsed.required("catalog")
        users = try parsed.integer("users", in: 0...Int.max) ?? 0  // required: always given
        seed = try parsed.unsigned("seed") ?? 1
        outputPath = parsed.value("output")
        grantsPath = parsed.value("grants")
        var grantsAt: [Instant] = []
        for text in parsed.all("grants-at") { grantsAt.append(try CommonOptions.instant(text, now: now, command: Self.spec.name)) }
        self.grantsAt = grantsAt.isEmpty ? [now] : grantsAt.sorted()
    }

    /// Of the issues a user may read, the share (in percent) the generated grants leave out.
    static let missedPercent = 2
    /// The share (in percent) of users served one issue they may not read.
    static let extraPercent = 3

    func run(output: OutputFile) throws(CLIError) -> Int32 {
        let catalog = try CommonOptions.catalog(catalogPath)
        let destination = try outputPath.map { (path) throws(CLIError) in try OutputFile(path: path) } ?? output
        let grants = try grantsPath.map { (path) throws(CLIError) in try OutputFile(path: path) }
        try grants?.write("user_id,publication,issue_id,granted_at\n")
        let population = SyntheticPopulation(catalog: catalog)
        var random = SeededGenerator(seed: seed)
        // The grants draw from their own generator, so the receipts are the same with or without them.
        var mistakes = SeededGenerator(seed: seed ^ 0x6772_616E_7473)
        let decoder = ReceiptDecoder(catalog: catalog)
        let engine = EntitlementEngine(catalog: catalog)
        for user in 0..<users {
            let line = population.line(user: user, random: &random)
            try destination.write(line + [0x0A])
            if let grants {
                let rows = try Self.grants(user: "user-\(user)", line: line, decoder: decoder, engine: engine, instants: grantsAt, random: &mistakes)
                try grants.write(rows)
            }
        }
        try destination.finish()
        try grants?.finish()
        return 0
    }

    /// What a content system served one user by the last of `instants`: every issue readable at
    /// any of them (dated when it first became readable), less a few, plus now and then one issue
    /// served at an instant when the user could not read it (a revenue leak, judged as the audit
    /// judges it: at the instant it was served).
    static func grants(
        user: String, line: [UInt8], decoder: ReceiptDecoder, engine: EntitlementEngine, instants: [Instant], random: inout SeededGenerator
    ) throws(CLIError) -> String {
        let history: PurchaseHistory
        do {
            let root = try JSONDocument(parsing: line).root
            guard let receipt = root.member("receipt") else { return "" }
            history = try decoder.decode(receipt, path: "$.receipt").history
        } catch {
            return ""
        }
        guard let last = instants.last else { return "" }
        // Per publication, in catalog order: each issue readable at some instant, and since when.
        var served: [(publication: Publication, issues: [(issue: Issue, since: Instant)])] = []
        for at in instants {
            for entitlement in engine.evaluate(history, at: at).publications {
                let publication = entitlement.publication
                if !served.contains(where: { $0.publication.id == publication.id }) { served.append((publication, [])) }
                let slot = served.firstIndex { $0.publication.id == publication.id }!
                for entry in entitlement.readable where entry.reasons != [.free] {
                    let since = readableSince(entry, entitlement, history)
                    if let known = served[slot].issues.firstIndex(where: { $0.issue == entry.issue }) {
                        served[slot].issues[known].since = min(served[slot].issues[known].since, since)
                    } else {
                        served[slot].issues.append((entry.issue, since))
                    }
                }
            }
        }
        var rows = ""
        for (publication, issues) in served {
            for (issue, since) in issues.sorted(by: { ($0.issue.published, $0.issue.id) < ($1.issue.published, $1.issue.id) })
            where !random.chance(missedPercent) {
                rows += CSV.row([user, publication.id, issue.id, since.description])
            }
            if random.chance(extraPercent) {
                // Served some hour in the six months before the last instant, an issue published
                // by then that the user could not read then.
                let servedAt = last.adding(milliseconds: -Int64(random.below(180 * 24)) * 3_600_000)
                let denied = engine.evaluate(history, publication: publication, at: servedAt).decisions
                    .filter { !$0.access.isReadable && $0.issue.published <= servedAt }.map(\.issue)
                if !denied.isEmpty {
                    rows += CSV.row([user, publication.id, denied[random.below(denied.count)].id, servedAt.description])
                }
            }
        }
        return rows
    }

    /// When an issue first became readable, by the earliest of its reasons: its publication, the
    /// start of the period that unlocked it, the first streaming period after its publication, or
    /// the purchase of the issue itself.
    static func readableSince(_ entry: ReadableIssue, _ entitlement: PublicationEntitlement, _ history: PurchaseHistory) -> Instant {
        let published = entry.issue.published
        return entry.reasons.map { reason -> Instant in
            switch reason {
            case .publishedDuringPeriod, .free: return published
            case .unlockedAtPeriodStart(let period): return entitlement.periods[period].start
            case .streaming:
                let first = entitlement.periods.first { $0.access == .streaming && $0.end > published }
                return max(published, first?.start ?? published)
            case .singlePurchase(let transactionId):
                return max(published, history.transactions.first { $0.transactionId == transactionId }?.purchase ?? published)
            }
        }.min() ?? published
    }
}
