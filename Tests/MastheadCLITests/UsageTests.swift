import Masthead
@testable import MastheadCLI
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
              check     Show one user's status, periods and every issue's decision, from receipts or the service's database.
              audit     Decide entitlements for many users (receipts file or service database); reconcile grants.
              import    Store a receipts file's users in the service's database, as posted receipts are stored.
              timeline  Draw one reader's intervals, periods, lapses and issues as an SVG picture.
              generate  Write a synthetic population of receipts as audit input (same seed, same bytes).
              serve     Run the companion service: receipts, notifications, download checks over HTTP.
              refresh   Ask Apple about the subscriptions about to expire, once.
              migrate   Move receipt-only subscriptions to signed data from the App Store Server API.
              grants    Import the publisher's grants (print subscribers, comps, gifts) into the service's database.

            Run 'masthead help <command>' or 'masthead <command> --help' for a command's options,
            'masthead --version' for the version.
            Exit status: 0 success, 1 invalid input data, 2 discrepancies found (audit --fail-on-discrepancy),
            64 usage error, 66 unreadable input, 73 unwritable output, 75 cannot listen now (serve: retry later),
            78 invalid service configuration.

            """)
        #expect(try Tool.run([]).output == outcome.output)
    }

    @Test func version_printsTheProjectVersion() throws {
        for arguments in [["--version"], ["version"]] {
            let outcome = try Tool.run(arguments)
            #expect(outcome.status == 0)
            #expect(outcome.output == "masthead \(MastheadVersion.current)\n")
        }
        #expect(MastheadVersion.current.split(separator: ".").count == 3)
    }

    @Test func helpCommand_printsTheCommandsHelp_asItsHelpOptionDoes() throws {
        for command in MastheadTool.spec.commands {
            let help = try Tool.run(["help", command.name])
            #expect(help.status == 0)
            #expect(help.output.hasPrefix("Usage: masthead \(command.name)"))
            #expect(help.output == (try Tool.run([command.name, "--help"])).output)
        }
        #expect(try Tool.run(["help"]).output == (try Tool.run(["--help"])).output)
    }

    /// Golden: the help written from check's spec.
    @Test func checkHelp_isGolden() throws {
        #expect(try Tool.run(["check", "--help"]).output == """
            Usage: masthead check --catalog DIR (--receipt FILE | --user ID) [options]

            Prints one user's status per publication, their periods and lapses, and every issue with
            whether it is readable and why. With --format json, also the offer and billing terms signed
            data gives (purchaseTerms, the status's renewalTerms).

            With --database and --user instead of --receipt, answers for a reader the companion service
            stores, exactly as GET /v1/users/{userId}/entitlements does: the user's stored history
            (transactions, renewal infos, grants, licences) and the catalog with the issues published
            through the service, read in one snapshot without writing (safe while the service runs;
            --format json prints the service's body, user_id included). A user the database does not
            hold (ids are matched by their exact bytes) exits 64; a database that cannot be read, or
            whose schema is older than this masthead's (it is never migrated from here), exits 66.

            Options:
              --catalog DIR            Catalog folder holding catalog.json (or the JSON file itself).
              --receipt FILE           A verifyReceipt response, a version 1 notification body, a version 2
                                       notification body {"signedPayload": ...}, signed transactions
                                       {"signedTransactions": [...], "signedRenewalInfos": [...]}, or an audit
                                       input line, with the publisher's grants if any ("grants": [...]), or
                                       user_id and grants alone (JSON; told apart by shape). Repeat to merge
                                       several.
              --database FILE|URL      The service's database, a SQLite file or postgresql:// URL, read-only:
                                       answer for the stored reader --user names, as the service does.
              --user ID                The stored user to answer for (with --database; its exact bytes).
              --at INSTANT             The as-of instant, RFC 3339 (default: now).
              --publication ID         Only this publication (shown even without a transaction).
              --environment ENV        production (default) or sandbox.
              --format FORMAT          text (default) or json.
              --root-certificate FILE  A root certificate (DER or PEM) signed data must chain to; repeat for
                                       several (default: Apple Root CA - G3).
              --bundle-id ID           The bundle id signed data must carry (default: catalog.json's app.bundleId).
              --app-apple-id N         The App Apple ID production notifications must carry (default:
                                       catalog.json's app.appAppleId; not checked without one).
              -h, --help               Show this help.

            Signed data (version 2 notifications, signed transactions and renewal info) is verified as
            Apple's library verifies it: ES256, a chain of three certificates with Apple's extensions to a
            root certificate (Apple Root CA - G3 unless --root-certificate is given), valid at the token's
            signedDate, and the app's bundle id (--bundle-id, else catalog.json's "app": {"bundleId": ...,
            "appAppleId": ...}; one of them is required). A file with a token that fails is refused (exit
            1, the reason and the token's JSON path on standard error, nothing printed). Data of every
            App Store environment is read; only the chosen --environment's grants (sandbox data never
            grants in production).

            """)
    }

    /// The parser accepts every option a command's help lists, and the help lists every option
    /// the parser accepts: both come from one spec.
    @Test func everyCommand_acceptsExactlyTheOptionsItsHelpLists() throws {
        for command in MastheadTool.spec.commands {
            let listed = command.help.split(separator: "\n").compactMap { line -> String? in
                guard line.hasPrefix("  --") else { return nil }
                return String(line.dropFirst(4).prefix { $0 != " " })
            }
            #expect(listed == command.options.map(\.name), "\(command.name)")
            var arguments = command.operands
            for option in command.options where !command.alternatives.contains(where: { $0.dropFirst().contains(option.name) }) {
                arguments += option.isFlag ? ["--\(option.name)"] : ["--\(option.name)", "x"]
            }
            #expect(throws: Never.self, "\(command.name)") { try Arguments(arguments, spec: command) }
            #expect(throws: CLIError.self, "\(command.name)") { try Arguments(arguments + ["--undeclared"], spec: command) }
        }
    }

    @Test func commandHelp_listsEveryOption() throws {
        let check = try Tool.run(["check", "--help"])
        #expect(check.status == 0)
        #expect(check.output.hasPrefix("Usage: masthead check --catalog DIR (--receipt FILE | --user ID) [options]\n"))
        for option in ["--catalog", "--receipt", "--database", "--user", "--at", "--publication", "--environment", "--format", "--help"] {
            #expect(check.output.contains(option))
        }
        let audit = try Tool.run(["audit", "-h"])
        #expect(audit.status == 0)
        #expect(audit.output.hasPrefix("Usage: masthead audit --catalog DIR (--receipts FILE.jsonl | --database FILE|URL) [options]\n"))
        for option in [
            "--catalog", "--receipts", "--database", "--at", "--environment", "--format", "--output", "--grants", "--fail-on-discrepancy", "--report",
            "--shard", "--help",
        ] {
            #expect(audit.output.contains(option))
        }
        let timeline = try Tool.run(["timeline", "--help"])
        #expect(timeline.status == 0)
        #expect(timeline.output.hasPrefix("Usage: masthead timeline --catalog DIR (--receipt FILE | --database FILE|URL) --output FILE.svg [options]\n"))
        for option in ["--catalog", "--receipt", "--database", "--output", "--at", "--publication", "--environment", "--user", "--from", "--to", "--help"] {
            #expect(timeline.output.contains(option))
        }
    }

    static let mistakes: [(arguments: [String], message: String)] = [
        (["frobnicate"], "masthead: unknown command 'frobnicate' (see 'masthead --help')\n"),
        (["check", "--receipt", "x"], "masthead: check: missing --catalog (see 'masthead check --help')\n"),
        (["check", "--catalog", "c"], "masthead: check: missing --receipt FILE or --user ID (see 'masthead check --help')\n"),
        (["check", "--catalog", "c", "--receipt", "r", "--colour"], "masthead: check: unknown option '--colour' (see 'masthead check --help')\n"),
        (["check", "--catalog", "c", "--receipt", "r", "--at", "July"], "masthead: check: --at 'July' is not an RFC 3339 instant such as 2020-07-02T00:00:00Z\n"),
        (["check", "--catalog", "c", "--receipt", "r", "--format", "xml"], "masthead: check: --format must be text or json, not 'xml'\n"),
        (["audit", "--catalog", "c", "--receipts", "r", "--environment", "staging"], "masthead: audit: --environment must be production or sandbox, not 'staging'\n"),
        (["audit", "--catalog", "c", "--receipts"], "masthead: audit: --receipts needs a value\n"),
        (["audit", "stray"], "masthead: audit: unexpected argument 'stray' (see 'masthead audit --help')\n"),
        (["audit", "--catalog", "c"], "masthead: audit: missing --receipts FILE.jsonl or --database FILE|URL (see 'masthead audit --help')\n"),
        (["audit", "--catalog", "c", "--receipts", "r", "--database", "d"], "masthead: audit: give --receipts or --database, not both\n"),
        (["audit", "--catalog", "c", "--receipts", "r", "--format", "xml"], "masthead: audit: --format must be jsonl or csv, not 'xml'\n"),
        (["timeline", "--catalog", "c", "--receipt", "r"], "masthead: timeline: missing --output (see 'masthead timeline --help')\n"),
        (["chek"], "masthead: unknown command 'chek', did you mean 'check'? (see 'masthead --help')\n"),
        (["--versoin"], "masthead: unknown command '--versoin', did you mean '--version'? (see 'masthead --help')\n"),
        (["help", "audti"], "masthead: unknown command 'audti', did you mean 'audit'? (see 'masthead --help')\n"),
        (["check", "--catalog", "c", "--recept", "r"], "masthead: check: unknown option '--recept', did you mean '--receipt'? (see 'masthead check --help')\n"),
        (["audit", "--catalog", "c", "--receipts", "r", "--fail-on-discrepancies"],
         "masthead: audit: unknown option '--fail-on-discrepancies', did you mean '--fail-on-discrepancy'? (see 'masthead audit --help')\n"),
        (["serve", "--maxBodyBites", "10"], "masthead: serve: unknown option '--maxBodyBites', did you mean '--maxBodyBytes'? (see 'masthead serve --help')\n"),
        (["check", "--catalog", "c", "--receipt", "r", "--format", "json", "--format", "text"], "masthead: check: --format may be given only once\n"),
        (["audit", "--catalog", "c", "--receipts", "r", "--fail-on-discrepancy=yes"], "masthead: audit: --fail-on-discrepancy takes no value\n"),
        (["generate", "--catalog", "c", "--users", "-3"], "masthead: generate: --users must be a whole number of at least 0, not '-3'\n"),
        (["serve", "--port", "http"], "masthead: serve: --port must be a whole number from 0 to 65535, not 'http'\n"),
        (["serve", "--restore", "steal"], "masthead: serve: --restore must be transfer, keep or transferIfInactive, not 'steal'\n"),
        (["help", "audit", "check"], "masthead: help: name one command (see 'masthead --help')\n"),
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
