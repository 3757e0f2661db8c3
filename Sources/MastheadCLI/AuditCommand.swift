import Glibc
import Masthead
import MastheadFormats
import MastheadReports
import MastheadStorage

/// `masthead audit`: one result per (user, publication) for every user of a receipts file or of
/// the service's database, as JSON lines or CSV, with an optional reconciliation and HTML report.
struct AuditCommand {
    static let spec = CommandSpec(
        name: "audit", summary: "Decide entitlements for many users (receipts file or service database); reconcile grants.",
        description: """
            Decides every user's entitlements and writes one result per (user, publication) the user has
            a transaction for. Input: --receipts, one user per line,
            {"user_id": "...", "receipt": {...verifyReceipt response...}}; or --database, the companion
            service's SQLite database, read-only in one snapshot (safe while the service runs; issues
            published through the service count). Output, in input order:
              jsonl (default)  {"user_id", "publication", "status", "readable": [...]} per line
              csv              user_id,publication,status,readable (issue ids separated by spaces)
            A line that cannot be used is reported on standard error with its line number and produces
            no output; the exit status is then 1. A summary table (users, lines, then per as-of instant:
            per status, per product, and the reconciliation's findings per kind and product) goes to
            standard error at the end; while it runs, a progress line is shown when standard error is
            a terminal.
            """,
        options: [
            CommonOptions.catalogOption,
            .value("receipts", "FILE.jsonl", "JSON lines input; - reads standard input."),
            .value("database", "FILE", "The service's database (instead of --receipts)."),
            .value(
                "at", "INSTANT",
                """
                The as-of instant, RFC 3339 (default: now). Repeat for a series: JSON
                lines then carry "asOf": [{"at", "status", "readable"}, ...], CSV has
                the columns once per instant, suffixed @INSTANT.
                """, repeatable: true),
            CommonOptions.environmentOption,
            .value("format", "FORMAT", "jsonl (default) or csv."),
            .value(
                "output", "FILE",
                """
                Write the results here instead of standard output (atomically:
                a temporary file renamed into place when the audit is complete).
                """),
            .value(
                "grants", "FILE",
                """
                What the content system served: CSV user_id,publication,issue_id[,granted_at]
                or JSON lines with those fields. Adds to each result, with the
                engine's reasons: overGranted (served when the reader was not
                entitled, judged at granted_at, or at the instant without one: a
                revenue leak), underGranted (entitled, not served by the instant;
                never a free issue) and heldAfterEntitlementEnded (served while
                entitled, no longer entitled at the instant); CSV: issue=reason.
                Grants of unknown publications or issues are reported on standard
                error; those of users without a receipt line in one line.
                """),
            .flag(
                "fail-on-discrepancy",
                """
                Exit 2 when reconciliation finds any over- or under-granted issue
                (needs --grants).
                """),
            .value(
                "shard", "K/N",
                """
                Audit only the users whose user_id hashes to part K of N (64-bit
                FNV-1a of its UTF-8 bytes, modulo N, plus 1), in the input and in
                the grants alike: N runs over the same files cover every user once.
                """),
            .value(
                "report", "FILE.html",
                """
                Also write a self-contained HTML page: inputs, counts per as-of
                instant (a chart of statuses), per product, and the findings by
                kind and product, worst first, with about 1000 lines listed
                (at least 10 of each group; written atomically).
                """),
        ],
        alternatives: [["receipts", "database"]])
    let catalogPath: String
    /// Where the users come from: a receipts JSON lines file, or the service's SQLite database.
    let source: Source
    /// The as-of instants, in the order given; one result per instant.
    let instants: [Instant]
    let environment: Environment
    let format: AuditFormat
    let outputPath: String?
    let grantsPath: String?
    let reportPath: String?
    let failOnDiscrepancy: Bool
    /// Only the users of this part, in the input and in the grants.
    let shard: Shard?
    /// When the audit ran, for the report.
    let now: Instant

    enum Source {
        case receipts(String)
        case database(String)
    }

    /// Lines with findings listed in the HTML report, shared among the groups (instant, kind,
    /// product); the output holds them all.
    static let reportedLines = 1000
    /// Lines listed for a group at least, however many groups there are.
    static let reportedLinesPerGroup = 10

    init(_ arguments: [String], now: Instant) throws(CLIError) {
        let parsed = try Arguments(arguments, spec: Self.spec)
        grantsPath = parsed.value("grants")
        failOnDiscrepancy = parsed.flag("fail-on-discrepancy")
        if failOnDiscrepancy && grantsPath == nil {
            throw CLIError.usage("\(Self.spec.name): --fail-on-discrepancy needs --grants FILE (nothing is reconciled without it)")
        }
        shard = try parsed.value("shard").map { (text) throws(CLIError) in try Shard(parsing: text, command: Self.spec.name) }
        // To the second, for people.
        self.now = Instant(milliseconds: now.milliseconds - now.milliseconds % 1000)
        catalogPath = parsed.required("catalog")
        // The parser has made sure exactly one of the two is given.
        source = parsed.value("receipts").map(Source.receipts) ?? .database(parsed.required("database"))
        var instants: [Instant] = []
        for text in parsed.all("at") { instants.append(try CommonOptions.instant(text, now: now, command: Self.spec.name)) }
        self.instants = instants.isEmpty ? [now] : instants
        environment = try CommonOptions.environment(parsed.value("environment"), command: Self.spec.name)
        let formatName = parsed.value("format") ?? "jsonl"
        guard let format = AuditFormat(rawValue: formatName) else {
            throw CLIError.usage("\(Self.spec.name): --format must be jsonl or csv, not '\(formatName)'")
        }
        self.format = format
        outputPath = parsed.value("output")
        reportPath = parsed.value("report")
    }

    func run(output: OutputFile, errors: OutputFile) throws(CLIError) -> Int32 {
        var catalog = try CommonOptions.catalog(catalogPath)
        let grants = try grantsPath.map { (path) throws(CLIError) in try Grants.load(path, shard: shard) }
        var store: (any EntitlementStore)?
        if case .database(let path) = source {
            let opened = try Self.openDatabase(path)
            // Issues published through the service count as they do for the service.
            do {
                for (publicationId, issue) in try opened.publishedIssues() {
                    if let publication = catalog.publication(publicationId) { catalog = catalog.replacing(publication.upserting(issue)) }
                }
            } catch { throw CLIError.cannotRead(path: path, reason: "\(error)") }
            store = opened
        }
        let destination = try outputPath.map { (path) throws(CLIError) in try OutputFile(path: path) } ?? output
        let report = try reportPath.map { (path) throws(CLIError) in try OutputFile(path: path) }
        if format == .csv { try destination.write(Auditor.csvHeader(instants: instants, reconciles: grants != nil)) }
        // One auditor per core.
        let workers = max(1, min(8, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))))
        var pipeline = AuditPipeline(auditors: (0..<workers).map { _ in
            Auditor(catalog: catalog, instants: instants, environment: environment, grants: grants, format: format, shard: shard, collectsFindings: report != nil)
        })
        var listing = FindingListing(capacity: Self.reportedLines)
        var otherShardUsers = 0
        var written = 0
        // Shown only on a terminal; `consumed` is how much input has been read, in the progress unit.
        var progress: AuditProgress?
        var consumed = 0
        func write(_ batch: [AuditRecord], _ outcomes: [Auditor.Outcome]) throws(CLIError) {
            for (record, outcome) in zip(batch, outcomes) {
                switch outcome {
                case .written(let bytes, let findings):
                    try destination.write(bytes)
                    for finding in findings { listing.add(finding) }
                case .skipped: break
                case .rejected(let reason): try errors.write("\(record.location): \(reason)\n")
                }
            }
            written += batch.count
            if !batch.isEmpty { try progress?.update(users: written, done: consumed, on: errors) }
        }
        switch source {
        case .receipts(let path):
            let reader = try LineReader(path: path, chunkSize: AuditPipeline.readSize)
            if errors.isTerminal { progress = AuditProgress(unit: .bytes, total: Files.size(path)) }
            func read() throws(CLIError) -> [AuditRecord] {
                let batch = try AuditRecord.batch(from: reader, maxLines: AuditPipeline.batchSize, maxBytes: AuditPipeline.batchBytes)
                consumed = reader.bytesConsumed
                return batch
            }
            try pipeline.run(read: read, write: write)
        case .database(let path):
            guard let store else { break }
            do {
                var after: String?
                func read() throws(CLIError) -> [AuditRecord] {
                    do {
                        // At most batchSize users and about batchTransactions transactions: users
                        // with long histories make smaller batches.
                        // Users of other shards are passed over; an empty batch only at the end.
                        var batch: [AuditRecord] = []
                        var transactions = 0
                        var more = true
                        while batch.isEmpty && more {
                            let ids = try store.userIds(after: after, limit: AuditPipeline.batchSize)
                            more = !ids.isEmpty
                            for id in ids {
                                if transactions >= AuditPipeline.batchTransactions { break }
                                after = id
                                consumed += 1
                                if let shard, !shard.contains(id) {
                                    otherShardUsers += 1
                                    continue
                                }
                                let history = try store.history(forUser: id)
                                batch.append(.user(id: id, history: history))
                                transactions += history.transactions.count
                            }
                        }
                        return batch
                    } catch {
                        throw CLIError.cannotRead(path: path, reason: "\(error)")
                    }
                }
                // One read snapshot: the audit sees one state of the database while the service goes on writing.
                try store.readSnapshot {
                    if errors.isTerminal { progress = AuditProgress(unit: .users, total: try store.userCount()) }
                    try pipeline.run(read: read, write: write)
                }
            } catch let error as CLIError {
                throw error
            } catch {
                throw CLIError.cannotRead(path: path, reason: "\(error)")
            }
        }
        try progress?.finish(on: errors)
        let auditors = pipeline.auditors
        try destination.finish()
        var summary = auditors.map(\.summary).reduce(AuditSummary(instants: instants)) { $0.adding($1) }
        summary.reconciled = grants != nil
        summary.shard = shard
        summary.otherShardLines += otherShardUsers
        if let grants {
            // Grants the audit could not place: unknown publications and issues one line each,
            // grants of users without a receipt line in one line.
            let problems = auditors.flatMap(\.grantProblems)
            for problem in problems.sorted(by: { $0.line < $1.line }) {
                try errors.write("\(grants.path):\(problem.line): \(problem.message)\n")
            }
            let seen = auditors.reduce(into: Set<String>()) { $0.formUnion($1.seenGrantUsers) }
            var unknownUsers = 0
            var first: (line: Int, user: String)?
            for (user, list) in grants.byUser where !seen.contains(user) {
                unknownUsers += 1
                summary.unknownGrantUsers += list.count
                for grant in list where first.map({ grant.line < $0.line }) ?? true { first = (grant.line, user) }
            }
            if let first {
                try errors.write(
                    "\(grants.path): \(summary.unknownGrantUsers) grant(s) of \(unknownUsers) user(s) without a receipt line\(shard == nil ? "" : " in this shard"), "
                        + "not reconciled (first: line \(first.line), user \(first.user))\n")
            }
            summary.otherShardGrants = grants.otherShardGrants
        }
        try errors.write(summary.rendered)
        if let report {
            try report.write(AuditReportPage(reportContent(summary, listing: listing)).html)
            try report.finish()
        }
        if summary.rejectedLines > 0 { return 1 }
        return failOnDiscrepancy && summary.hasDiscrepancy ? 2 : 0
    }

    /// Opens the service's database without write access (safe beside the running service).
    static func openDatabase(_ path: String) throws(CLIError) -> any EntitlementStore {
        guard access(path, R_OK) == 0 else { throw CLIError.cannotRead(path: path, reason: String(cString: strerror(errno))) }
        do { return try SQLiteStore(path: path, readOnly: true) } catch { throw CLIError.cannotRead(path: path, reason: "\(error)") }
    }

    /// What the HTML report shows.
    private func reportContent(_ summary: AuditSummary, listing: FindingListing) -> AuditReportPage.Content {
        var inputs: [(label: String, value: String)] = [("catalog", catalogPath)]
        switch source {
        case .receipts(let path): inputs.append(("receipts", path))
        case .database(let path): inputs.append(("database", path))
        }
        if let grantsPath { inputs.append(("grants", grantsPath)) }
        if let shard { inputs.append(("shard", "\(shard.description) (users whose id hashes to it)")) }
        inputs.append(("as of", instants.map(\.description).joined(separator: ", ")))
        inputs.append(("environment", environment.rawValue))
        var totals: [(label: String, value: Int)] = [("lines read", summary.lines)]
        if shard != nil { totals.append(("lines of other shards", summary.otherShardLines)) }
        totals += [
            ("users", summary.users), ("rejected lines", summary.rejectedLines),
            ("transactions of unknown products", summary.unknownProductTransactions), ("(user, publication) lines", summary.outputLines),
        ]
        if grantsPath != nil {
            totals += [
                ("grants of users without a receipt line", summary.unknownGrantUsers), ("grants of unknown publications", summary.unknownGrantPublications),
                ("grants of unknown issues", summary.unknownGrantIssues),
            ]
            if shard != nil { totals.append(("grants of other shards", summary.otherShardGrants)) }
        }
        let products = summary.products.map { product in
            (product, summary.byProduct.map { counts in
                let count = counts[product] ?? AuditSummary.ProductCount()
                return (count.entitled, count.lines)
            })
        }
        var reconciliation: AuditReportPage.Reconciliation?
        if grantsPath != nil {
            let counts = GrantFinding.allCases.map { kind in
                (kind, summary.total(kind), summary.products(with: kind).map { ($0, summary.counts(kind, product: $0)) })
            }
            // Per instant, kind, then product worst first; each group's share of the listed lines.
            var keys: [FindingListing.Key] = []
            for instant in instants.indices {
                for kind in GrantFinding.allCases {
                    for product in summary.products(with: kind) where summary.counts(kind, product: product)[instant] > 0 {
                        keys.append(FindingListing.Key(instant: instant, kind: kind, product: product))
                    }
                }
            }
            let share = max(Self.reportedLinesPerGroup, Self.reportedLines / max(1, keys.count))
            let listed = keys.map { key in
                AuditReportPage.ListedGroup(
                    at: instants[key.instant], kind: key.kind, product: key.product, total: summary.counts(key.kind, product: key.product)[key.instant],
                    lines: (listing.groups[key] ?? []).prefix(share).map {
                        AuditReportPage.ListedLine(userId: $0.userId, publication: $0.publication, issues: $0.issues)
                    })
            }
            reconciliation = AuditReportPage.Reconciliation(counts: counts, listed: listed)
        }
        return AuditReportPage.Content(
            inputs: inputs, generated: now, version: MastheadVersion.current, totals: totals, instants: instants, states: summary.byInstant,
            products: products, productRule: AuditSummary.productRule, reconciliation: reconciliation)
    }
}

/// One user to audit: a receipts line, or a history read from the database.
enum AuditRecord {
    /// Line `number` of a file: `range` of the bytes of `block`.
    case line(block: LineBlock, number: Int, range: Range<Int>)
    case user(id: String, history: PurchaseHistory)

    /// The next receipts lines: at most `maxLines`, and no further block once the batch holds
    /// `maxBytes` of them, so long lines make smaller batches rather than more memory.
    static func batch(from reader: LineReader, maxLines: Int, maxBytes: Int) throws(CLIError) -> [AuditRecord] {
        var batch: [AuditRecord] = []
        batch.reserveCapacity(maxLines)
        var bytes = 0
        while batch.count < maxLines, bytes < maxBytes, let (block, lines) = try reader.nextLines(max: maxLines - batch.count) {
            bytes += block.memory.count
            for line in lines { batch.append(.line(block: block, number: line.number, range: line.range)) }
        }
        return batch
    }

    /// Where a rejected record came from, for the message: `FILE:LINE` or the user id.
    var location: String {
        switch self {
        case .line(let block, let number, _): "\(block.path):\(number)"
        case .user(let id, _): "user \(id)"
        }
    }
}
