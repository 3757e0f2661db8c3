import MastheadService

/// The `--help` texts, checked by golden tests.
enum HelpText {
    /// Each command's help, by command name.
    static let command = ["check": check, "audit": audit, "timeline": timeline, "generate": generate, "serve": serve, "refresh": refresh]

    static let root = """
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
        Usage: masthead audit --catalog DIR (--receipts FILE.jsonl | --database FILE) [options]

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

        Options:
          --catalog DIR          Catalog folder holding catalog.json (or the JSON file itself).
          --receipts FILE        JSON lines input; - reads standard input.
          --database FILE        The service's database (instead of --receipts).
          --at INSTANT           The as-of instant, RFC 3339 (default: now). Repeat for a series: JSON
                                 lines then carry "asOf": [{"at", "status", "readable"}, ...], CSV has
                                 the columns once per instant, suffixed @INSTANT.
          --environment ENV      production (default) or sandbox.
          --format FORMAT        jsonl (default) or csv.
          --output FILE          Write the results here instead of standard output (atomically:
                                 a temporary file renamed into place when the audit is complete).
          --grants FILE          What the content system served: CSV user_id,publication,issue_id[,granted_at]
                                 or JSON lines with those fields. Adds to each result, with the
                                 engine's reasons: overGranted (served when the reader was not
                                 entitled, judged at granted_at, or at the instant without one: a
                                 revenue leak), underGranted (entitled, not served by the instant;
                                 never a free issue) and heldAfterEntitlementEnded (served while
                                 entitled, no longer entitled at the instant); CSV: issue=reason.
                                 Grants of unknown publications or issues are reported on standard
                                 error; those of users without a receipt line in one line.
          --fail-on-discrepancy  Exit 2 when reconciliation finds any over- or under-granted issue
                                 (needs --grants).
          --shard K/N            Audit only the users whose user_id hashes to part K of N (64-bit
                                 FNV-1a of its UTF-8 bytes, modulo N, plus 1), in the input and in
                                 the grants alike: N runs over the same files cover every user once.
          --report FILE.html     Also write a self-contained HTML page: inputs, counts per as-of
                                 instant (a chart of statuses), per product, and the findings by
                                 kind and product, worst first, with about 1000 lines listed
                                 (at least 10 of each group; written atomically).
          -h, --help             Show this help.

        """

    static let timeline = """
        Usage: masthead timeline --catalog DIR --receipt FILE --output FILE.svg [options]

        Draws one reader's entitlements as an SVG picture, one panel per publication: every issue
        as a marker per reason it is readable (P published in a period, U unlocked at a period's
        start, S streaming, $ bought on its own, F free; hollow: not readable), each product's
        intervals in a row of their own (trial, introductory offer, upgraded, non-renewing, free,
        billing grace and billing retry styled apart, an arrow at an upgrade), refunded purchases
        struck through, archive and streaming periods each in a row with their lapses, the date of
        every period boundary, a time axis and the as-of instant. Hovering an element in a browser
        shows the engine's reason in words.

        Options:
          --catalog DIR          Catalog folder holding catalog.json (or the JSON file itself).
          --receipt FILE         A verifyReceipt response (JSON), or an audit input line
                                 {"user_id": ..., "receipt": {...}}. Repeat to merge several receipts.
          --output FILE          The SVG file to write (atomically).
          --at INSTANT           The as-of instant, RFC 3339 (default: now).
          --publication ID       Only this publication (drawn even without a transaction).
          --environment ENV      production (default) or sandbox.
          --user NAME            The reader's name for the heading (default: the file's user_id,
                                 else the subscription's original transaction id).
          --from INSTANT         Draw from this instant (default: the earliest issue, period or refund).
          --to INSTANT           Draw up to this instant (default: the latest one, or the as-of instant).
          -h, --help             Show this help.

        """

    static let generate = """
        Usage: masthead generate --catalog DIR --users N [--seed S] [--output FILE] [--grants FILE --grants-at INSTANT]

        Writes N synthetic users as audit input lines, {"user_id": "user-0", "receipt": {...}}, from
        the catalog's products: renewals that overlap slightly, lapses of hours and months, refunds,
        upgrades, trials, billing retry and grace periods, non-renewing passes, single issues,
        sandbox receipts, and the date and flag shapes real receipts use. The same seed gives the
        same bytes. With --grants, also writes what a content system would have served them, as CSV
        user_id,publication,issue_id,granted_at: every issue readable at one of the --grants-at
        instants (dated when it first became readable) but about 2 % left out, and for about 3 % of
        users one issue served in the six months before the last instant at an hour when they could
        not read it (for audit --grants demos).

        Options:
          --catalog DIR          Catalog folder holding catalog.json (or the JSON file itself).
          --users N              How many users.
          --seed S               The random seed (default 1).
          --output FILE          Write here instead of standard output.
          --grants FILE          Also write grants for the users here.
          --grants-at INSTANT    An instant the grants describe, RFC 3339 (default: now); repeat it
                                 for the instants of an audit series.
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
        Uses the same configuration as 'masthead serve' and, of its secrets, only
        MASTHEAD_APP_STORE_SHARED_SECRET (the verifyReceipt password). It may run beside a running
        'masthead serve' on the same database, which answers from the stored renewals at once.
        Exit status 1 when any failed.

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

