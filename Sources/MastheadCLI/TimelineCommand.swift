import Masthead
import MastheadFormats
import MastheadReports

/// `masthead timeline`: one reader's intervals, periods, lapses and issues as an SVG picture.
struct TimelineCommand {
    static let name = "timeline"
    let reader: ReaderOptions
    let outputPath: String
    /// The name for the heading; by default the file's `user_id`, else the subscription's id.
    let user: String?
    /// Limits of the time drawn; by default everything.
    let from: Instant?
    let to: Instant?

    init(_ arguments: [String], now: Instant) throws(CLIError) {
        let parsed = try Arguments(arguments, options: ReaderOptions.names.union(["output", "user", "from", "to"]), command: Self.name)
        reader = try ReaderOptions(parsed, now: now, command: Self.name)
        outputPath = try parsed.required("output", command: Self.name)
        user = parsed.value("user")
        func instant(_ name: String) throws(CLIError) -> Instant? {
            guard let text = parsed.value(name) else { return nil }
            guard let instant = DateText.rfc3339(text) else {
                throw CLIError.usage("\(Self.name): --\(name) '\(text)' is not an RFC 3339 instant such as 2020-07-02T00:00:00Z")
            }
            return instant
        }
        from = try instant("from")
        to = try instant("to")
        if let from, let to, from >= to { throw CLIError.usage("\(Self.name): --from must be before --to") }
    }

    func run(output: OutputFile) throws(CLIError) -> Int32 {
        let (history, userId, entitlements) = try reader.read()
        // Named as the user is known: given, from the file, or by the App Store's subscription ids.
        var subscriptions: [String] = []
        for transaction in history.transactions where transaction.environment == reader.environment && !subscriptions.contains(transaction.originalTransactionId) {
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
