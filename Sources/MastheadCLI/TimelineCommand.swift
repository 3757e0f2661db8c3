import Masthead
import MastheadReports

/// `masthead timeline`: one reader's intervals, periods, lapses and issues as an SVG picture.
struct TimelineCommand {
    static let name = "timeline"
    let catalogPath: String
    let receiptPaths: [String]
    let at: Instant
    let publicationId: String?
    let environment: Environment
    let outputPath: String

    init(_ arguments: [String], now: Instant) throws(CLIError) {
        let parsed = try Arguments(
            arguments, options: ["catalog", "receipt", "at", "publication", "environment", "output"], command: Self.name)
        catalogPath = try parsed.required("catalog", command: Self.name)
        receiptPaths = parsed.all("receipt")
        guard !receiptPaths.isEmpty else { throw CLIError.usage("\(Self.name): missing --receipt (see 'masthead \(Self.name) --help')") }
        at = try CommonOptions.instant(parsed.value("at"), now: now, command: Self.name)
        publicationId = parsed.value("publication")
        environment = try CommonOptions.environment(parsed.value("environment"), command: Self.name)
        outputPath = try parsed.required("output", command: Self.name)
    }

    func run(output: OutputFile) throws(CLIError) -> Int32 {
        let entitlements = try CheckCommand.entitlements(
            catalogPath: catalogPath, receiptPaths: receiptPaths, at: at, publicationId: publicationId, environment: environment, command: Self.name)
        let reader = receiptPaths.map { $0.split(separator: "/").last.map(String.init) ?? $0 }.joined(separator: " + ")
        let chart = TimelineChart(reader: reader, entitlements: entitlements.publications)
        let file = try OutputFile(path: outputPath)
        try file.write(chart.svg)
        try file.finish()
        return 0
    }
}
