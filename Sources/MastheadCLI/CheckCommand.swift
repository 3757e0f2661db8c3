import Masthead
import MastheadFormats
import MastheadJSON
import MastheadStorage

/// `masthead check`: one user's entitlements from one or more receipt files, or from the
/// service's database as the service answers them.
struct CheckCommand: MastheadCommand {
    static let spec = CommandSpec(
        name: "check", summary: "Show one user's status, periods and every issue's decision, from receipts or the service's database.",
        description: """
            Prints one user's status per publication, their periods and lapses, and every issue with
            whether it is readable and why. With --format json, also the offer and billing terms signed
            data gives (purchaseTerms, the status's renewalTerms).

            With --database and --user instead of --receipt, answers for a reader the companion service
            stores, exactly as GET /v1/users/{userId}/entitlements does: the user's stored history
            (transactions, renewal infos, grants, licences) and the catalog with the issues published
            through the service, read in one snapshot without writing (safe while the service runs;
            --format json prints the service's body, user_id included). A user the database does not
            hold (ids are matched by their exact bytes) exits 64; a database that cannot be read, or
            whose schema is older than this masthead's (it is never migrated from here), exits 66.
            """,
        options: [
            CommonOptions.catalogOption, CommonOptions.receiptOption,
            StoredReader.databaseOption, .value("user", "ID", "The stored user to answer for (with --database; its exact bytes)."),
            CommonOptions.at.spec,
            .value("publication", "ID", "Only this publication (shown even without a transaction)."), CommonOptions.environment.spec,
            formatOption.spec,
        ] + CommonOptions.trustOptions,
        alternatives: [["receipt", "user"]],
        epilogue: ReaderOptions.signedDataNote)
    /// How the answer is printed.
    enum Format: String, CaseIterable, Sendable {
        /// For people (``TextReport``).
        case text
        /// The service's entitlement JSON.
        case json
    }

    /// `--format FORMAT`.
    static let formatOption = ChoiceOption<Format>("format", "FORMAT", default: .text)

    let reader: ReaderOptions
    let format: Format

    init(_ parsed: Arguments, now: Instant) throws(CLIError) {
        reader = try ReaderOptions(parsed, now: now, command: Self.spec.name, userNamesStoredReader: true)
        format = try Self.formatOption.value(in: parsed, command: Self.spec.name)
    }

    func run(output: OutputFile, errors: OutputFile) throws(CLIError) -> Int32 {
        let entitlements = try reader.entitlements()
        switch format {
        case .json:
            var writer = JSONWriter()
            EntitlementJSON.write(entitlements, userId: reader.stored?.userId, into: &writer)
            try output.write(writer.bytes + [0x0A])
        case .text:
            try output.write(TextReport.render(entitlements))
        }
        return 0
    }
}

/// The options of the commands about one reader (`check`, `timeline`): catalog, receipts or the
/// service's database and a user, as-of instant, publication, environment and how signed data is trusted.
struct ReaderOptions {
    let command: String
    let catalogPath: String
    let receiptPaths: [String]
    /// The stored reader, with `--database` (then there are no receipt files).
    let stored: StoredReader?
    let at: Instant
    let publicationId: String?
    let environment: Environment
    let trust: TrustOptions

    /// What the help of `check` and `timeline` says about signed data.
    static let signedDataNote = """
        Signed data (version 2 notifications, signed transactions and renewal info) is verified as
        Apple's library verifies it: ES256, a chain of three certificates with Apple's extensions to a
        root certificate (Apple Root CA - G3 unless --root-certificate is given), valid at the token's
        signedDate, and the app's bundle id (--bundle-id, else catalog.json's "app": {"bundleId": ...,
        "appAppleId": ...}; one of them is required). A file with a token that fails is refused (exit
        1, the reason and the token's JSON path on standard error, nothing printed). Data of every
        App Store environment is read; only the chosen --environment's grants (sandbox data never
        grants in production).
        """

    /// Reads the options; `--database` needs `--user`, and when `userNamesStoredReader` (`check`)
    /// `--user` needs `--database` (`timeline`'s `--user` also names a receipt's reader).
    init(_ parsed: Arguments, now: Instant, command: String, userNamesStoredReader: Bool) throws(CLIError) {
        self.command = command
        catalogPath = parsed.required("catalog")
        receiptPaths = parsed.all("receipt")
        let user = parsed.value("user")
        if let database = parsed.value("database") {
            guard receiptPaths.isEmpty else { throw CLIError.usage("\(command): give --receipt or --database, not both") }
            guard let user else { throw CLIError.usage("\(command): --database needs --user ID, the stored user to answer for") }
            stored = StoredReader(location: StoreLocation(database), userId: user)
        } else {
            if userNamesStoredReader, user != nil {
                throw CLIError.usage("\(command): --user ID names a user of the service's database: it needs --database FILE|URL")
            }
            stored = nil
        }
        at = try CommonOptions.at.instant(in: parsed, command: command) ?? now
        publicationId = parsed.value("publication")
        environment = try CommonOptions.environment.value(in: parsed, command: command)
        trust = try TrustOptions(parsed, command: command)
    }

    /// The reader's entitlements from the receipt files (merged): every publication they have a
    /// transaction for, or only `--publication` (even without one).
    func entitlements() throws(CLIError) -> UserEntitlements { try read().entitlements }

    /// The reader's history from the receipt files (merged, ``ReceiptInput``), the user id the
    /// files give (a file may be an audit input line, `{"user_id": …, "receipt": {…}}`), and the
    /// entitlements. Every file is read before anything is decided, so one refused file stops
    /// the command before it prints anything. With `--database`, the stored user's history and id
    /// instead, against the catalog with the issues published through the service (``StoredReader``).
    func read() throws(CLIError) -> (history: PurchaseHistory, userId: String?, entitlements: UserEntitlements) {
        let document = try CommonOptions.catalogDocument(catalogPath)
        if let stored {
            let (history, catalog) = try stored.read(catalog: document.catalog, command: command)
            return (history, stored.userId, try entitlements(history, catalog: catalog))
        }
        let catalog = document.catalog
        var history = PurchaseHistory()
        var userId: String?
        // Made at the first file of signed data, then shared.
        var verifier: SignedDataVerifier?
        for path in receiptPaths {
            let input = try ReceiptInput(path: path, bytes: try Files.read(path))
            userId = userId ?? input.userId
            history.merge(
                try input.history(catalog: catalog) { () throws(CLIError) -> SignedDataVerifier in
                    if let verifier { return verifier }
                    guard let made = try trust.verifier(catalog: document) else { throw TrustOptions.missingApp(command: command, at: path) }
                    verifier = made
                    return made
                })
        }
        return (history, userId, try entitlements(history, catalog: catalog))
    }

    /// What the engine decides for `history` as of `at` in `environment`: every publication the
    /// history has a transaction for, or only `--publication`.
    private func entitlements(_ history: PurchaseHistory, catalog: Catalog) throws(CLIError) -> UserEntitlements {
        let engine = EntitlementEngine(catalog: catalog)
        var entitlements = engine.evaluate(history, at: at, environment: environment)
        if let publicationId {
            guard let publication = catalog.publication(publicationId) else {
                let known = catalog.publications.map(\.id).joined(separator: ", ")
                throw CLIError.usage("\(command): unknown publication '\(publicationId)' (the catalog has: \(known))")
            }
            entitlements.publications = [engine.evaluate(history, publication: publication, at: at, environment: environment)]
        }
        return entitlements
    }
}
