import Masthead
import MastheadAudit
import MastheadFormats
import MastheadReports

/// `masthead audit`: one result per (user, publication) for every user of a receipts file or of
/// the service's database, as JSON lines or CSV, with an optional reconciliation and HTML report.
struct AuditCommand: MastheadCommand {
    static let spec = CommandSpec(
        name: "audit", summary: "Decide entitlements for many users (receipts file or service database); reconcile grants.",
        description: """
            Decides every user's entitlements and writes one result per (user, publication) the user has
            a transaction for. Input: --receipts, one user per line,
            {"user_id": "...", "receipt": {...verifyReceipt response...}} or
            {"user_id": "...", "signedTransactions": [...], "signedRenewalInfos": [...]} (one or the
            other; every signature verified, in the workers, unless --trust-verified); or --database, the companion
            service's database (a SQLite file, or a postgresql:// URL read through a cursor), read-only
            in one snapshot (safe while the service runs; issues published through the service count). Output, in input order:
              jsonl (default)  {"user_id", "publication", "status", "readable": [...]} per line
              csv              user_id,publication,status,readable (issue ids separated by spaces)
            A line that cannot be used is reported on standard error with its line number and produces
            no output; the exit status is then 1. A summary table (users, lines, then per as-of instant:
            per status, per product, and the reconciliation's findings per kind and product) goes to
            standard error at the end (with --summary-json, also as JSON to a file); while it runs, a
            progress line is shown when standard error is a terminal.
            """,
        options: [
            CommonOptions.catalogOption,
            .value("receipts", "FILE.jsonl", "JSON lines input; - reads standard input."),
            .value("database", "FILE|URL", "The service's database, a SQLite file or postgresql:// URL (instead of --receipts)."),
            CommonOptions.at.repeatable(
                """
                Repeat for a series: JSON
                lines then carry "asOf": [{"at", "status", "readable"}, ...], CSV has
                the columns once per instant, suffixed @INSTANT.
                """),
            CommonOptions.environment.spec,
            formatOption.spec,
            .value(
                "output", "FILE",
                """
                Write the results here instead of standard output (atomically:
                a temporary file renamed into place when the audit is complete);
                an existing FILE must be a regular file (a link, FIFO or device
                is refused); - is standard output.
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
                Exit 2 when reconciliation finds any over- or under-granted issue,
                or a grant of a publication or issue the catalog does not have
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
            .value(
                "summary-json", "FILE",
                """
                Also write the summary as one JSON object: the figures of the
                table under stable names (see Auditing.md), to add up the
                summaries of several parts of one audit (written atomically,
                even when the exit status is 1; - is standard output, only
                with --output).
                """),
            .value(
                "max-line-bytes", "N",
                """
                The longest input line read, in bytes before its newline (default
                67108864, 64 MiB; at most 1073741824). A longer receipts line is
                reported with its line number and skipped unread, like any
                unusable line (exit 1); a longer grants line stops the audit.
                """),
        ] + CommonOptions.trustOptions + [CommonOptions.trustVerifiedOption],
        alternatives: [["receipts", "database"]],
        epilogue: """
            Signed lines are verified as by 'masthead check' (see its help): ES256, Apple's chain to a root
            certificate (Apple Root CA - G3 unless --root-certificate is given) valid at each token's
            signedDate, and the app's bundle id (--bundle-id, else catalog.json's "app" object; a signed
            line without either stops the audit, exit 64). A line whose token is refused is reported like
            any unusable line, with the token's JSON path, and grants nothing. Data of every App Store
            environment is read; only the chosen --environment's grants. With --trust-verified, the
            summary and the report say that no signature was verified.
            """)
    /// `--format FORMAT`.
    static let formatOption = ChoiceOption<AuditFormat>("format", "FORMAT", default: .jsonl)
    /// Stopped by SIGINT or SIGTERM, an audit leaves no temporary output file behind.
    static let removesTemporaryFilesOnStopSignals = true

    let catalogPath: String
    /// Where the users come from: a receipts JSON lines file, or the service's database.
    let source: AuditConfiguration.Source
    /// The as-of instants, in the order given; one result per instant.
    let instants: [Instant]
    let environment: Environment
    let format: AuditFormat
    let outputPath: String?
    let grantsPath: String?
    let reportPath: String?
    /// Where the summary goes as JSON, if anywhere.
    let summaryJSONPath: String?
    let failOnDiscrepancy: Bool
    /// Only the users of this part, in the input and in the grants.
    let shard: Shard?
    /// When the audit ran, for the report.
    let now: Instant
    /// How signed lines are trusted.
    let trust: TrustOptions
    /// The longest input line read.
    let maxLineBytes: Int

    init(_ parsed: Arguments, now: Instant) throws(CLIError) {
        grantsPath = parsed.value("grants")
        failOnDiscrepancy = parsed.flag("fail-on-discrepancy")
        if failOnDiscrepancy && grantsPath == nil {
            throw CLIError.usage("\(Self.spec.name): --fail-on-discrepancy needs --grants FILE (nothing is reconciled without it)")
        }
        shard = try parsed.value("shard").map { (text) throws(CLIError) in
            guard let shard = Shard(parsing: text) else {
                throw CLIError.usage("\(Self.spec.name): --shard must be K/N with 1 ≤ K ≤ N, such as 1/4, not '\(text)'")
            }
            return shard
        }
        // To the second, for people.
        self.now = Instant(milliseconds: now.milliseconds - now.milliseconds % 1000)
        catalogPath = parsed.required("catalog")
        // The parser has made sure exactly one of the two is given.
        source = parsed.value("receipts").map { .receipts(path: $0) } ?? .database(path: parsed.required("database"))
        let instants = try CommonOptions.at.instants(in: parsed, command: Self.spec.name)
        self.instants = instants.isEmpty ? [now] : instants
        environment = try CommonOptions.environment.value(in: parsed, command: Self.spec.name)
        format = try Self.formatOption.value(in: parsed, command: Self.spec.name)
        outputPath = parsed.value("output")
        reportPath = parsed.value("report")
        summaryJSONPath = parsed.value("summary-json")
        if summaryJSONPath == "-" && (outputPath ?? "-") == "-" {
            throw CLIError.usage("\(Self.spec.name): --summary-json - needs --output FILE (the results go to standard output otherwise)")
        }
        trust = try TrustOptions(parsed, command: Self.spec.name)
        maxLineBytes = try parsed.integer("max-line-bytes", in: 1...(1 << 30)) ?? AuditConfiguration.defaultMaxLineBytes
    }

    /// Runs the audit; the exit status is 1 when a line was rejected, 2 when `--fail-on-discrepancy`
    /// and reconciliation found an over- or under-granted issue.
    func run(output: OutputFile, errors: OutputFile) throws(CLIError) -> Int32 {
        let document = try CommonOptions.catalogDocument(catalogPath)
        let configuration = AuditConfiguration(
            catalog: document.catalog, source: source, instants: instants, environment: environment,
            signedData: try trust.verifier(catalog: document), format: format, grantsPath: grantsPath, shard: shard,
            collectsFindings: reportPath != nil, maxLineBytes: maxLineBytes)
        let audit = try Self.auditing { () throws(AuditError) in try Audit(configuration) }
        let sink = AuditOutput(
            results: try outputPath.map { (path) throws(CLIError) in try OutputFile(path: path) } ?? output, errors: errors)
        let report = try reportPath.map { (path) throws(CLIError) in try OutputFile(path: path) }
        let summaryJSON = try summaryJSONPath.map { (path) throws(CLIError) in try OutputFile(path: path) }
        let result = try Self.auditing { () throws(AuditError) in try audit.run(into: sink) }
        try sink.finishProgress()
        try sink.results.finish()
        for message in result.grantMessages { try errors.write(message + "\n") }
        try errors.write(result.summary.rendered)
        if let summaryJSON {
            try summaryJSON.write(result.summary.json)
            try summaryJSON.finish()
        }
        if let report {
            try report.write(AuditReportPage(result.reportContent(catalogPath: catalogPath, generated: now, version: MastheadVersion.current)).html)
            try report.finish()
        }
        if result.summary.rejectedLines > 0 { return 1 }
        return failOnDiscrepancy && result.summary.hasDiscrepancy ? 2 : 0
    }

    /// Runs a step of the audit, its failures as the command's.
    private static func auditing<R>(_ step: () throws(AuditError) -> R) throws(CLIError) -> R {
        do { return try step() } catch { throw CLIError(error, command: spec.name) }
    }
}
