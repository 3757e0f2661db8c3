import Masthead
import MastheadReports

/// `masthead timeline`: one reader's intervals, periods, lapses and issues as an SVG picture.
struct TimelineCommand {
    static let name = "timeline"
    let reader: ReaderOptions
    let outputPath: String

    init(_ arguments: [String], now: Instant) throws(CLIError) {
        let parsed = try Arguments(arguments, options: ReaderOptions.names.union(["output"]), command: Self.name)
        reader = try ReaderOptions(parsed, now: now, command: Self.name)
        outputPath = try parsed.required("output", command: Self.name)
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
