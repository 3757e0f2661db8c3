package import Masthead
import MastheadFormats

/// Options several commands share: their declarations and how their values are read.
package enum CommonOptions {
    /// `--catalog DIR`, required.
    static let catalogOption = OptionSpec.value("catalog", "DIR", "Catalog folder holding catalog.json (or the JSON file itself).", required: true)
    /// `--receipt FILE`, one or more.
    static let receiptOption = OptionSpec.value(
        "receipt", "FILE", "A verifyReceipt response (JSON). Repeat to merge several receipts.", repeatable: true, required: true)
    /// `--at INSTANT` for one as-of instant.
    static let atOption = OptionSpec.value("at", "INSTANT", "The as-of instant, RFC 3339 (default: now).")
    /// `--environment ENV`.
    static let environmentOption = OptionSpec.value("environment", "ENV", "production (default) or sandbox.")

    /// Loads `DIR/catalog.json` (or the file itself when a file is named): the one catalog loader
    /// of the commands and the benchmarks.
    package static func catalog(_ path: String) throws(CLIError) -> Catalog {
        let file = Files.isDirectory(path) ? path + "/catalog.json" : path
        let bytes = try Files.read(file)
        do { return try CatalogDecoder().decode(bytes, file: file) } catch { throw CLIError.invalidInput(path: file, error) }
    }

    /// The as-of instant from `--at`, or `now`.
    static func instant(_ text: String?, now: Instant, command: String) throws(CLIError) -> Instant {
        guard let text else { return now }
        guard let instant = DateText.rfc3339(text) else {
            throw CLIError.usage("\(command): --at '\(text)' is not an RFC 3339 instant such as 2020-07-02T00:00:00Z")
        }
        return instant
    }

    /// The environment from `--environment` (production by default).
    static func environment(_ text: String?, command: String) throws(CLIError) -> Environment {
        guard let text else { return .production }
        guard let environment = Environment(rawValue: text.lowercased()) else {
            throw CLIError.usage("\(command): --environment must be production or sandbox, not '\(text)'")
        }
        return environment
    }
}
