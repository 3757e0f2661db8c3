import Masthead
import MastheadFormats

/// `masthead generate`: a synthetic population as audit input, the same bytes for the same seed.
struct GenerateCommand {
    static let name = "generate"
    let catalogPath: String
    let users: Int
    let seed: UInt64
    let outputPath: String?

    init(_ arguments: [String]) throws(CLIError) {
        let parsed = try Arguments(arguments, options: ["catalog", "users", "seed", "output"], command: Self.name)
        catalogPath = try parsed.required("catalog", command: Self.name)
        guard let users = Int(try parsed.required("users", command: Self.name)), users >= 0 else {
            throw CLIError.usage("generate: --users must be a whole number")
        }
        self.users = users
        let seedText = parsed.value("seed") ?? "1"
        guard let seed = UInt64(seedText) else { throw CLIError.usage("generate: --seed must be a whole number, not '\(seedText)'") }
        self.seed = seed
        outputPath = parsed.value("output")
    }

    func run(output: OutputFile) throws(CLIError) -> Int32 {
        let catalog = try CommonOptions.catalog(catalogPath)
        let destination = try outputPath.map { (path) throws(CLIError) in try OutputFile(path: path) } ?? output
        // Histories start in the year of the catalog's first issue, so they meet its issues.
        let first = catalog.publications.compactMap { $0.issues.first?.published }.min() ?? Instant(milliseconds: 1_577_836_800_000)
        let population = SyntheticPopulation(catalog: catalog, start: first)
        var random = SeededGenerator(seed: seed)
        for user in 0..<users {
            try destination.write(population.line(user: user, random: &random) + [0x0A])
        }
        try destination.finish()
        return 0
    }
}
