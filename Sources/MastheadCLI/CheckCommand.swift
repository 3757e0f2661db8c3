import Masthead
import MastheadFormats
import MastheadJSON

/// `masthead check`: one user's entitlements from one or more receipt files.
struct CheckCommand {
    static let spec = CommandSpec(
        name: "check", summary: "Show one user's status, periods and every issue's decision, from a receipt.",
        description: """
            Prints one user's status per publication, their periods and lapses, and every issue with
            whether it is readable and why.
            """,
        options: [
            CommonOptions.catalogOption, CommonOptions.receiptOption, CommonOptions.atOption,
            .value("publication", "ID", "Only this publication (shown even without a transaction)."), CommonOptions.environmentOption,
            .value("format", "FORMAT", "text (default) or json."),
        ])
    let reader: ReaderOptions
    let json: Bool

    init(_ arguments: [String], now: Instant) throws(CLIError) {
        let parsed = try Arguments(arguments, spec: Self.spec)
        reader = try ReaderOptions(parsed, now: now, command: Self.spec.name)
        switch parsed.value("format") ?? "text" {
        case "text": json = false
        case "json": json = true
        case let other: throw CLIError.usage("check: --format must be text or json, not '\(other)'")
        }
    }

    func run(output: OutputFile) throws(CLIError) -> Int32 {
        let entitlements = try reader.entitlements()
        if json {
            var writer = JSONWriter()
            EntitlementJSON.write(entitlements, userId: nil, into: &writer)
            try output.write(writer.bytes + [0x0A])
        } else {
            try output.write(TextReport.render(entitlements))
        }
        return 0
    }
}

/// The options of the commands about one reader (`check`, `timeline`): catalog, receipts, as-of
/// instant, publication and environment.
struct ReaderOptions {
    let command: String
    let catalogPath: String
    let receiptPaths: [String]
    let at: Instant
    let publicationId: String?
    let environment: Environment

    init(_ parsed: Arguments, now: Instant, command: String) throws(CLIError) {
        self.command = command
        catalogPath = parsed.required("catalog")
        receiptPaths = parsed.all("receipt")
        at = try CommonOptions.instant(parsed.value("at"), now: now, command: command)
        publicationId = parsed.value("publication")
        environment = try CommonOptions.environment(parsed.value("environment"), command: command)
    }

    /// The reader's entitlements from the receipt files (merged): every publication they have a
    /// transaction for, or only `--publication` (even without one).
    func entitlements() throws(CLIError) -> UserEntitlements { try read().entitlements }

    /// The reader's history from the receipt files (merged), the user id the files give (a file may
    /// be an audit input line, `{"user_id": …, "receipt": {…}}`), and the entitlements.
    func read() throws(CLIError) -> (history: PurchaseHistory, userId: String?, entitlements: UserEntitlements) {
        let catalog = try CommonOptions.catalog(catalogPath)
        var history = PurchaseHistory()
        var userId: String?
        let decoder = ReceiptDecoder(catalog: catalog)
        for path in receiptPaths {
            let bytes = try Files.read(path)
            do {
                let root = try? JSONDocument(parsing: bytes).root
                if let root, let receipt = root["receipt"], let user = root["user_id"].flatMap({ $0.string ?? $0.numberText }) {
                    userId = userId ?? user
                    history.merge(try decoder.decode(receipt, path: "$.receipt").history)
                } else {
                    history.merge(try decoder.decode(bytes).history)
                }
            } catch {
                throw CLIError.invalidInput(path: path, error)
            }
        }
        let engine = EntitlementEngine(catalog: catalog)
        var entitlements = engine.evaluate(history, at: at, environment: environment)
        if let publicationId {
            guard let publication = catalog.publication(publicationId) else {
                let known = catalog.publications.map(\.id).joined(separator: ", ")
                throw CLIError.usage("\(command): unknown publication '\(publicationId)' (the catalog has: \(known))")
            }
            entitlements.publications = [engine.evaluate(history, publication: publication, at: at, environment: environment)]
        }
        return (history, userId, entitlements)
    }
}
