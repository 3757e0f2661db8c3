import Masthead
import MastheadFormats
import MastheadJSON

/// `masthead check`: one user's entitlements from one or more receipt files.
struct CheckCommand: MastheadCommand {
    static let spec = CommandSpec(
        name: "check", summary: "Show one user's status, periods and every issue's decision, from a receipt.",
        description: """
            Prints one user's status per publication, their periods and lapses, and every issue with
            whether it is readable and why. With --format json, also the offer and billing terms signed
            data gives (purchaseTerms, the status's renewalTerms).
            """,
        options: [
            CommonOptions.catalogOption, CommonOptions.receiptOption, CommonOptions.at.spec,
            .value("publication", "ID", "Only this publication (shown even without a transaction)."), CommonOptions.environment.spec,
            formatOption.spec,
        ] + CommonOptions.trustOptions,
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
        reader = try ReaderOptions(parsed, now: now, command: Self.spec.name)
        format = try Self.formatOption.value(in: parsed, command: Self.spec.name)
    }

    func run(output: OutputFile, errors: OutputFile) throws(CLIError) -> Int32 {
        let entitlements = try reader.entitlements()
        switch format {
        case .json:
            var writer = JSONWriter()
            EntitlementJSON.write(entitlements, userId: nil, into: &writer)
            try output.write(writer.bytes + [0x0A])
        case .text:
            try output.write(TextReport.render(entitlements))
        }
        return 0
    }
}

/// The options of the commands about one reader (`check`, `timeline`): catalog, receipts, as-of
/// instant, publication, environment and how signed data is trusted.
struct ReaderOptions {
    let command: String
    let catalogPath: String
    let receiptPaths: [String]
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

    init(_ parsed: Arguments, now: Instant, command: String) throws(CLIError) {
        self.command = command
        catalogPath = parsed.required("catalog")
        receiptPaths = parsed.all("receipt")
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
    /// the command before it prints anything.
    func read() throws(CLIError) -> (history: PurchaseHistory, userId: String?, entitlements: UserEntitlements) {
        let document = try CommonOptions.catalogDocument(catalogPath)
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
