import Masthead
import MastheadReports

/// `masthead timeline`: one reader's intervals, periods, lapses and issues as an SVG picture.
struct TimelineCommand {
    static let spec = CommandSpec(
        name: "timeline", summary: "Draw one reader's intervals, periods, lapses and issues as an SVG picture.",
        description: """
            Draws one reader's entitlements as an SVG picture, one panel per publication: a time axis,
            each paid interval as a bar (trial, introductory offer, upgraded, non-renewing, free and
            grace intervals styled apart; refunded purchases struck through), the periods they merge
            into with lapses between them, the as-of instant, and each issue as a tick whose marker
            says whether it is readable and why (P published in a period, U unlocked at a period's
            start, S streaming, $ bought on its own, F free; hollow: not readable). Hovering an element
            in a browser shows the engine's reason in words.
            """,
        options: [
            CommonOptions.catalogOption, CommonOptions.receiptOption,
            .value("output", "FILE.svg", "The SVG file to write (atomically).", required: true), CommonOptions.atOption,
            .value("publication", "ID", "Only this publication (drawn even without a transaction)."), CommonOptions.environmentOption,
        ])
    let reader: ReaderOptions
    let outputPath: String

    init(_ arguments: [String], now: Instant) throws(CLIError) {
        let parsed = try Arguments(arguments, spec: Self.spec)
        reader = try ReaderOptions(parsed, now: now, command: Self.spec.name)
        outputPath = parsed.required("output")
    }

    func run(output: OutputFile) throws(CLIError) -> Int32 {
        let entitlements = try reader.entitlements()
        let name = reader.receiptPaths.map { $0.split(separator: "/").last.map(String.init) ?? $0 }.joined(separator: " + ")
        let chart = TimelineChart(reader: name, entitlements: entitlements.publications)
        let file = try OutputFile(path: outputPath)
        try file.write(chart.svg)
        try file.finish()
        return 0
    }
}
