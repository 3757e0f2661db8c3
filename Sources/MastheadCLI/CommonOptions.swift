package import Masthead
import MastheadFormats

/// Options several commands share: their declarations and how their values are read.
package enum CommonOptions {
    /// `--catalog DIR`, required.
    static let catalogOption = OptionSpec.value("catalog", "DIR", "Catalog folder holding catalog.json (or the JSON file itself).", required: true)
    /// `--receipt FILE`, one or more, of any shape ``ReceiptInput`` tells apart (or, instead,
    /// `--database` and `--user`: ``StoredReader``).
    static let receiptOption = OptionSpec.value(
        "receipt", "FILE",
        """
        A verifyReceipt response, a version 1 notification body, a version 2
        notification body {"signedPayload": ...}, signed transactions
        {"signedTransactions": [...], "signedRenewalInfos": [...]}, or an audit
        input line, with the publisher's grants if any ("grants": [...]), or
        user_id and grants alone (JSON; told apart by shape). Repeat to merge
        several.
        """, repeatable: true)
    /// `--at INSTANT`: the as-of instant, once (`check`, `timeline`) or a series (`audit`).
    static let at = InstantOption(name: "at", help: "The as-of instant, RFC 3339 (default: now).")
    /// `--environment ENV`: whose grants count, production (the default) or sandbox; any case.
    static let environment = ChoiceOption<Environment>("environment", "ENV", default: .production, lowercased: true)

    /// `--config FILE`: the JSON file of the service's settings, for the commands that share
    /// them (`serve`, `import`, `refresh`, `migrate`; ``ServeCommand/settings(_:command:)`` reads
    /// it); `help` says what of the file applies to the command.
    static func configOption(_ help: String) -> OptionSpec { .value(configName, "FILE", help) }
    /// The name of `--config`.
    static let configName = "config"

    /// `--root-certificate FILE`, `--bundle-id ID`, `--app-apple-id N`: how signed data is trusted
    /// (``TrustOptions``).
    static let trustOptions: [OptionSpec] = [
        .value(
            "root-certificate", "FILE",
            """
            A root certificate (DER or PEM) signed data must chain to; repeat for
            several (default: Apple Root CA - G3).
            """, repeatable: true),
        .value("bundle-id", "ID", "The bundle id signed data must carry (default: catalog.json's app.bundleId)."),
        .value(
            "app-apple-id", "N",
            """
            The App Apple ID production notifications must carry (default:
            catalog.json's app.appAppleId; not checked without one).
            """),
    ]
    /// `--trust-verified`, for the commands that read many users' signed lines (``TrustOptions``).
    static let trustVerifiedOption = OptionSpec.flag(
        "trust-verified",
        """
        Do not verify the signatures of signed lines (their shape, app and
        environment are still checked): for data the publisher's own store
        verified when it took it in. Not with --root-certificate.
        """)

    /// Loads `DIR/catalog.json` (or the file itself when a file is named): the one catalog loader
    /// of the commands and the benchmarks.
    package static func catalog(_ path: String) throws(CLIError) -> Catalog { try catalogDocument(path).catalog }

    /// The catalog file a `--catalog` path names: `DIR/catalog.json`, or the file itself.
    static func catalogFile(_ path: String) -> String { Files.isDirectory(path) ? path + "/catalog.json" : path }

    /// Loads `DIR/catalog.json` (or the named file) with its `"app"` object.
    static func catalogDocument(_ path: String) throws(CLIError) -> CatalogDocument {
        let file = catalogFile(path)
        let bytes = try Files.read(file)
        do { return try CatalogDecoder().decodeDocument(bytes, file: file) } catch { throw CLIError.invalidInput(path: file, error) }
    }
}
