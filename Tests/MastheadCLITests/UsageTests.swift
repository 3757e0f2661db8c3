import Testing

/// Help texts (golden) and usage errors: exit 64 with a one-line reason.
struct UsageTests {
    @Test func rootHelp_isGolden() throws {
        let outcome = try Tool.run(["--help"])
        #expect(outcome.status == 0)
        #expect(outcome.output == """
            masthead: decide which magazine issues App Store subscribers may read, and why.

            Usage: masthead <command> [options]

            Commands:
              check     Show one user's status, periods and every issue's decision, from a receipt.
              audit     Decide entitlements for many users (receipts file or service database); reconcile grants.
              timeline  Draw one reader's intervals, periods, lapses and issues as an SVG picture.
              generate  Write a synthetic population of receipts as audit input (same seed, same bytes).
              serve     Run the companion service: receipts, notifications, download checks over HTTP.
              refresh   Re-verify with Apple the subscriptions about to expire, once.

            Run 'masthead <command> --help' for a command's options.
            Exit status: 0 success, 1 invalid input data, 2 discrepancies found (audit --fail-on-discrepancy),
            64 usage error, 66 unreadable input, 73 unwritable output, 78 invalid service configuration.

            """)
        #expect(try Tool.run([]).output == outcome.output)
    }

    @Test func commandHelp_listsEveryOption() throws {
        let check = try Tool.run(["check", "--help"])
        #expect(check.status == 0)
        #expect(check.output.hasPrefix("Usage: masthead check --catalog DIR --receipt FILE [options]\n"))
        for option in ["--catalog", "--receipt", "--at", "--publication", "--environment", "--format", "--help"] {
            #expect(check.output.contains(option))
        }
        let audit = try Tool.run(["audit", "-h"])
        #expect(audit.status == 0)
        #expect(audit.output.hasPrefix("Usage: masthead audit --catalog DIR (--receipts FILE.jsonl | --database FILE) [options]\n"))
        for option in [
            "--catalog", "--receipts", "--database", "--at", "--environment", "--format", "--output", "--grants", "--fail-on-discrepancy", "--report",
            "--shard", "--help",
        ] {
            #expect(audit.output.contains(option))
        }
        let timeline = try Tool.run(["timeline", "--help"])
        #expect(timeline.status == 0)
        #expect(timeline.output.hasPrefix("Usage: masthead timeline --catalog DIR --receipt FILE --output FILE.svg [options]\n"))
        for option in ["--catalog", "--receipt", "--output", "--at", "--publication", "--environment", "--user", "--from", "--to", "--help"] {
            #expect(timeline.output.contains(option))
        }
    }

    static let mistakes: [(arguments: [String], message: String)] = [
        (["frobnicate"], "masthead: unknown command 'frobnicate' (see 'masthead --help')\n"),
        (["check", "--receipt", "x"], "masthead: check: missing --catalog (see 'masthead check --help')\n"),
        (["check", "--catalog", "c"], "masthead: check: missing --receipt (see 'masthead check --help')\n"),
        (["check", "--catalog", "c", "--receipt", "r", "--colour"], "masthead: check: unknown option '--colour' (see 'masthead check --help')\n"),
        (["check", "--catalog", "c", "--receipt", "r", "--at", "July"], "masthead: check: --at 'July' is not an RFC 3339 instant such as 2020-07-02T00:00:00Z\n"),
        (["check", "--catalog", "c", "--receipt", "r", "--format", "xml"], "masthead: check: --format must be text or json, not 'xml'\n"),
        (["audit", "--catalog", "c", "--receipts", "r", "--environment", "staging"], "masthead: audit: --environment must be production or sandbox, not 'staging'\n"),
        (["audit", "--catalog", "c", "--receipts"], "masthead: audit: --receipts needs a value\n"),
        (["audit", "stray"], "masthead: audit: unexpected argument 'stray' (see 'masthead audit --help')\n"),
        (["audit", "--catalog", "c"], "masthead: audit: missing --receipts FILE or --database FILE (see 'masthead audit --help')\n"),
        (["audit", "--catalog", "c", "--receipts", "r", "--database", "d"], "masthead: audit: give --receipts or --database, not both\n"),
        (["audit", "--catalog", "c", "--receipts", "r", "--format", "xml"], "masthead: audit: --format must be jsonl or csv, not 'xml'\n"),
        (["timeline", "--catalog", "c", "--receipt", "r"], "masthead: timeline: missing --output (see 'masthead timeline --help')\n"),
        (["audit", "--catalog", "c", "--receipts", "r", "--fail-on-discrepancy"],
         "masthead: audit: --fail-on-discrepancy needs --grants FILE (nothing is reconciled without it)\n"),
        (["audit", "--catalog", "c", "--receipts", "r", "--shard", "4/3"], "masthead: audit: --shard must be K/N with 1 ≤ K ≤ N, such as 1/4, not '4/3'\n"),
    ]

    @Test(arguments: mistakes)
    func usageError_exits64_withOneLineReason(mistake: (arguments: [String], message: String)) throws {
        let outcome = try Tool.run(mistake.arguments)
        #expect(outcome.status == 64)
        #expect(outcome.errors == mistake.message)
        #expect(outcome.output == "")
    }

    @Test func unknownPublication_isUsageError() throws {
        let outcome = try Tool.run([
            "check", "--catalog", "Catalog/the-monthly", "--receipt", "Catalog/the-monthly/receipts/table-6-1.json", "--publication", "the-daily",
        ])
        #expect(outcome.status == 64)
        #expect(outcome.errors == "masthead: check: unknown publication 'the-daily' (the catalog has: the-monthly)\n")
    }
}
