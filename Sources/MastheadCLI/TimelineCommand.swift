import Masthead
import MastheadReports

/// `masthead timeline`: one reader's intervals, periods, lapses and issues as an SVG picture, from
/// receipt files or from the service's database as the service draws it.
struct TimelineCommand: MastheadCommand {
    static let spec = CommandSpec(
        name: "timeline", summary: "Draw one reader's intervals, periods, lapses and issues as an SVG picture.",
        description: """
            Draws one reader's entitlements as an SVG picture, one panel per publication: every issue
            as a marker per reason it is readable (P published in a period, U unlocked at a period's
            start, S streaming, $ bought on its own, F free; hollow with a cross: not readable; dashed:
            not yet published by the as-of instant), each product's
            intervals in a row of their own (trial, introductory offer, upgraded, non-renewing, free,
            billing grace and billing retry styled apart, an arrow at an upgrade), refunded purchases
            struck through, archive and streaming periods each in a row with their lapses (a lapse still
            running drawn up to the as-of instant), the date of
            every period boundary, a time axis and the as-of instant. Hovering an element in a browser
            shows the engine's reason in words.

            With --database and --user instead of --receipt, draws a reader the companion service
            stores, exactly as GET /v1/users/{userId}/timeline.svg does (the same bytes for the same
            --at, --publication and --environment, without --from and --to): the stored history and
            the catalog with the issues published through the service, read in one snapshot without
            writing. Errors as 'masthead check --database' (see its help).
            """,
        options: [
            CommonOptions.catalogOption,
            CommonOptions.receiptOption, StoredReader.databaseOption,
            .value("output", "FILE.svg", "The SVG file to write (atomically; a regular file, or - for standard output).", required: true), CommonOptions.at.spec,
            .value("publication", "ID", "Only this publication (drawn even without a transaction)."), CommonOptions.environment.spec,
            .value(
                "user", "ID",
                """
                With --database, the stored user to draw (its exact bytes), who heads
                the picture. With --receipt, the reader's name for the heading
                (default: the file's user_id, else the subscription's original
                transaction id).
                """),
            fromOption.spec, toOption.spec,
        ] + CommonOptions.trustOptions,
        alternatives: [["receipt", "database"]],
        epilogue: ReaderOptions.signedDataNote)
    /// `--from INSTANT`.
    static let fromOption = InstantOption(name: "from", help: "Draw from this instant (default: the earliest issue, period or refund).")
    /// `--to INSTANT`.
    static let toOption = InstantOption(name: "to", help: "Draw up to this instant (default: the latest one, or the as-of instant).")

    let reader: ReaderOptions
    let outputPath: String
    /// The name for the heading (with `--database`, the stored user's id); by default the file's
    /// `user_id`, else the subscription's id.
    let user: String?
    /// Limits of the time drawn; by default everything.
    let from: Instant?
    let to: Instant?

    init(_ parsed: Arguments, now: Instant) throws(CLIError) {
        reader = try ReaderOptions(parsed, now: now, command: Self.spec.name, userNamesStoredReader: false)
        outputPath = parsed.required("output")
        user = parsed.value("user")
        from = try Self.fromOption.instant(in: parsed, command: Self.spec.name)
        to = try Self.toOption.instant(in: parsed, command: Self.spec.name)
        if let from, let to, from >= to { throw CLIError.usage("\(Self.spec.name): --from must be before --to") }
    }

    func run(output: OutputFile, errors: OutputFile) throws(CLIError) -> Int32 {
        let (history, userId, entitlements) = try reader.read()
        // Named as the user is known: given, from the file, or by the App Store's subscription ids.
        var subscriptions: [String] = []
        for transaction in history.transactions
        where transaction.environment == reader.environment && !subscriptions.contains(where: { $0.sameBytes(as: transaction.originalTransactionId) }) {
            subscriptions.append(transaction.originalTransactionId)
        }
        let name = user ?? userId
            ?? (subscriptions.isEmpty ? nil : "Reader of original transaction\(subscriptions.count == 1 ? "" : "s") " + subscriptions.joined(separator: ", "))
        let chart = TimelineChart(reader: name, entitlements: entitlements.publications, history: history, from: from, to: to)
        let file = try OutputFile(path: outputPath)
        try file.write(chart.svg)
        try file.finish()
        return 0
    }
}
