import Masthead
import MastheadFormats
import MastheadJSON

/// `masthead generate`: a synthetic population as audit input, the same bytes for the same seed;
/// optionally what a content system would have served them, with a few mistakes, for demos of
/// `audit --grants`.
struct GenerateCommand {
    static let name = "generate"
    let catalogPath: String
    let users: Int
    let seed: UInt64
    let outputPath: String?
    let grantsPath: String?
    /// The instant the generated grants describe.
    let grantsAt: Instant

    init(_ arguments: [String], now: Instant) throws(CLIError) {
        let parsed = try Arguments(arguments, options: ["catalog", "users", "seed", "output", "grants", "grants-at"], command: Self.name)
        catalogPath = try parsed.required("catalog", command: Self.name)
        guard let users = Int(try parsed.required("users", command: Self.name)), users >= 0 else {
            throw CLIError.usage("generate: --users must be a whole number")
        }
        self.users = users
        let seedText = parsed.value("seed") ?? "1"
        guard let seed = UInt64(seedText) else { throw CLIError.usage("generate: --seed must be a whole number, not '\(seedText)'") }
        self.seed = seed
        outputPath = parsed.value("output")
        grantsPath = parsed.value("grants")
        grantsAt = try CommonOptions.instant(parsed.value("grants-at"), now: now, command: Self.name)
    }

    /// Of the issues a user may read, the share (in percent) the generated grants leave out.
    static let missedPercent = 2
    /// The share (in percent) of users served one issue they may not read.
    static let extraPercent = 3

    func run(output: OutputFile) throws(CLIError) -> Int32 {
        let catalog = try CommonOptions.catalog(catalogPath)
        let destination = try outputPath.map { (path) throws(CLIError) in try OutputFile(path: path) } ?? output
        let grants = try grantsPath.map { (path) throws(CLIError) in try OutputFile(path: path) }
        try grants?.write("user_id,publication,issue_id\n")
        // Histories start in the year of the catalog's first issue, so they meet its issues.
        let first = catalog.publications.compactMap { $0.issues.first?.published }.min() ?? Instant(milliseconds: 1_577_836_800_000)
        let population = SyntheticPopulation(catalog: catalog, start: first)
        var random = SeededGenerator(seed: seed)
        // The grants draw from their own generator, so the receipts are the same with or without them.
        var mistakes = SeededGenerator(seed: seed ^ 0x6772_616E_7473)
        let decoder = ReceiptDecoder(catalog: catalog)
        let engine = EntitlementEngine(catalog: catalog)
        for user in 0..<users {
            let line = population.line(user: user, random: &random)
            try destination.write(line + [0x0A])
            if let grants {
                let rows = try Self.grants(user: "user-\(user)", line: line, decoder: decoder, engine: engine, at: grantsAt, random: &mistakes)
                try grants.write(rows)
            }
        }
        try destination.finish()
        try grants?.finish()
        return 0
    }

    /// What a content system served one user by `at`: the readable issues, less a few, plus now
    /// and then one issue the user may not read.
    static func grants(
        user: String, line: [UInt8], decoder: ReceiptDecoder, engine: EntitlementEngine, at: Instant, random: inout SeededGenerator
    ) throws(CLIError) -> String {
        let history: PurchaseHistory
        do {
            let root = try JSONDocument(parsing: line).root
            guard let receipt = root.member("receipt") else { return "" }
            history = try decoder.decode(receipt, path: "$.receipt").history
        } catch {
            return ""
        }
        var rows = ""
        for entitlement in engine.evaluate(history, at: at).publications {
            let publication = entitlement.publication.id
            for entry in entitlement.readable where entry.reasons != [.free] && !random.chance(missedPercent) {
                rows += CSV.row([user, publication, entry.issue.id])
            }
            if random.chance(extraPercent) {
                let denied = entitlement.decisions.filter { !$0.access.isReadable && $0.issue.published <= at }
                if !denied.isEmpty { rows += CSV.row([user, publication, denied[random.below(denied.count)].issue.id]) }
            }
        }
        return rows
    }
}
