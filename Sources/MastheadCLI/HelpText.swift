import MastheadService

/// The `--help` texts, checked by golden tests.
enum HelpText {
    static let root = """
        masthead: decide which magazine issues App Store subscribers may read, and why.

        Usage: masthead <command> [options]

        Commands:
          check   Show one user's status, periods and every issue's decision, from a receipt.
          audit   Decide entitlements for many users, one receipt per line, as JSON lines.
          generate Write a synthetic population of receipts as audit input (same seed, same bytes).
          serve   Run the companion service: receipts, notifications, download checks over HTTP.
          refresh Re-verify with Apple the subscriptions about to expire, once.

        Run 'masthead <command> --help' for a command's options.
        Exit status: 0 success, 1 invalid input data, 64 usage error, 66 unreadable input, 73 unwritable output,
        78 invalid service configuration.

        """

    static let check = """
        Usage: masthead check --catalog DIR --receipt FILE [options]

        Prints one user's status per publication, their periods and lapses, and every issue with
        whether it is readable and why.

        Options:
          --catalog DIR          Catalog folder holding catalog.json (or the JSON file itself).
          --receipt FILE         A verifyReceipt response (JSON). Repeat to merge several receipts.
          --at INSTANT           The as-of instant, RFC 3339 (default: now).
          --publication ID       Only this publication (shown even without a transaction).
          --environment ENV      production (default) or sandbox.
          --format FORMAT        text (default) or json.
          -h, --help             Show this help.

        """

    static let audit = """
        Usage: masthead audit --catalog DIR --receipts FILE.jsonl [options]

        Reads one user per line, {"user_id": "...", "receipt": {...verifyReceipt response...}}, and
        writes one JSON line per (user, publication) the user has a transaction for:
        {"user_id": "...", "publication": "...", "status": "active", "readable": ["2020-02", ...]}.
        A line that cannot be used is reported on standard error with its line number and produces
        no output; the exit status is then 1. A summary goes to standard error at the end.

        Options:
          --catalog DIR          Catalog folder holding catalog.json (or the JSON file itself).
          --receipts FILE        JSON lines input; - reads standard input.
          --at INSTANT           The as-of instant, RFC 3339 (default: now). Repeat for a series: each
                                 line then carries "asOf": [{"at", "status", "readable"}, ...].
          --environment ENV      production (default) or sandbox.
          --output FILE          Write the JSON lines here instead of standard output (atomically).
          --grants FILE          What the content system served: CSV user_id,publication,issue_id[,granted_at]
                                 or JSON lines with those fields. Adds overGranted and underGranted
                                 (with the engine's reasons) to each line; grants for unknown users,
                                 publications or issues are reported on standard error.
          --fail-on-discrepancy  Exit 2 when reconciliation finds any over- or under-granted issue.
          -h, --help             Show this help.

        """

    static let generate = """
        Usage: masthead generate --catalog DIR --users N [--seed S] [--output FILE]

        Writes N synthetic users as audit input lines, {"user_id": "user-0", "receipt": {...}}, from
        the catalog's products: renewals that overlap slightly, lapses of hours and months, refunds,
        upgrades, trials, billing retry and grace periods, non-renewing passes, single issues,
        sandbox receipts, and the date and flag shapes real receipts use. The same seed gives the
        same bytes.

        Options:
          --catalog DIR          Catalog folder holding catalog.json (or the JSON file itself).
          --users N              How many users.
          --seed S               The random seed (default 1).
          --output FILE          Write here instead of standard output.
          -h, --help             Show this help.

        """

    static let serve = """
        Usage: masthead serve [--catalog DIR] [--database FILE] [--host HOST] [--port N] [--config FILE]

        Runs the companion service. Once it accepts connections it prints 'listening on HOST:PORT'.
        SIGTERM or SIGINT stop it gracefully: no new connections, requests in flight finish, the
        database is closed.

        Options:
          --catalog DIR          Catalog folder holding catalog.json (default Catalog/the-monthly).
          --database FILE        SQLite database, created if needed (default masthead.sqlite).
          --host HOST            Address to listen on (default 127.0.0.1).
          --port N               Port; 0 picks a free one (default 8080).
          --config FILE          JSON file of settings (below); flags given here win over it.
          -h, --help             Show this help.

        \(ServiceConfigurationHelp.text)

        """

    static let refresh = """
        Usage: masthead refresh [--catalog DIR] [--database FILE] [--config FILE] [--within 3d]

        Re-verifies with Apple's verifyReceipt endpoint the latest receipt of every subscription
        whose expiry lies within the window from now, and stores the answers like posted receipts.
        Uses the same configuration and secrets as 'masthead serve'. Exit status 1 when any failed.

        Options:
          --catalog DIR          Catalog folder holding catalog.json.
          --database FILE        The service's SQLite database.
          --config FILE          JSON file of settings (see 'masthead serve --help').
          --within DURATION      How far ahead to look: 3d, 12h, 30m, 45s (default: pollingWindowSeconds).
          -h, --help             Show this help.

        """
}

/// The service settings' help, from the service module.
enum ServiceConfigurationHelp {
    static var text: String { MastheadService.ServiceConfiguration.settingsHelp }
}

