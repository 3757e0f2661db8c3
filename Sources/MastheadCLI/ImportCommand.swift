import Masthead
import MastheadAudit
import MastheadFormats
import MastheadService
import MastheadStorage

/// `masthead import`: a receipts file's users stored in the service's database, as the service
/// stores posted receipts and signed transactions, so that `audit --database` (or the service)
/// can read them.
struct ImportCommand: MastheadCommand {
    static let spec = CommandSpec(
        name: "import", summary: "Store a receipts file's users in the service's database, as posted receipts are stored.",
        description: """
            Stores each line of a receipts JSON lines file, {"user_id": "...", "receipt": {...}} or
            {"user_id": "...", "signedTransactions": [...], "signedRenewalInfos": [...]} (as
            'audit --receipts' reads them), for its user as POST /v1/users/{userId}/receipts (or
            /transactions) does: transactions and renewal info saved, the subscriptions linked to the
            user under the restore behaviour, the change logged for a running service to see. The
            publisher's grants a line carries ("grants": [...], beside the purchases or alone) are
            stored in the same write, each replacing the user's grant of its id (revokedAt included).
            maxCommitBatch lines at a time go to the service's group commit together, each such batch
            in one commit: an import stopped part-way keeps the batches committed before it, and
            importing the file again completes it. A line that cannot be used (a signed line: any
            token refused, named by its JSON path; a grant, named by its field), whose subscription
            the restore behaviour keeps with
            another user, or with a grant id another user holds, is reported on standard error as
            FILE:LINE: reason and stores nothing; the others are stored and the exit
            status is 1. Importing a file again gives the same histories. Standard output gets how many
            lines were stored and rejected.
            """,
        options: [
            CommonOptions.catalogOption,
            .value("receipts", "FILE.jsonl", "JSON lines input; - reads standard input.", required: true),
            .value(
                "database", "FILE.sqlite|URL", "The service's SQLite database (created if needed) or postgresql:// URL; a running service may use it.",
                required: true),
            CommonOptions.configOption("JSON file of the service's settings (see 'masthead serve --help'): restore and maxCommitBatch apply."),
        ] + ["restore", "maxCommitBatch"].compactMap(ServiceConfiguration.setting).map(ServeCommand.option) + CommonOptions.trustOptions
            + [CommonOptions.trustVerifiedOption],
        epilogue: """
            Signed lines are verified as by 'masthead audit' (see its help): every token, unless
            --trust-verified (then the output says so), for the app --bundle-id or catalog.json's "app"
            object names. A signed line met while neither names one stops the import there (exit 64;
            lines before it may be stored already): import again once the app is named.
            """)

    let receiptsPath: String
    /// The service's settings: the catalog and database given, the restore behaviour and batch size.
    let configuration: ServiceConfiguration
    /// How signed lines are trusted.
    let trust: TrustOptions

    init(_ parsed: Arguments, now: Instant) throws(CLIError) {
        var configuration = try ServeCommand.settings(parsed, command: Self.spec.name)
        configuration.catalogPath = parsed.required("catalog")
        configuration.databasePath = parsed.required("database")
        // The service's own range for the batch (its settings row's); import needs none of its secrets.
        if let problem = ServiceConfiguration.setting("maxCommitBatch")?.rangeProblem(in: configuration) {
            throw CLIError.configuration("invalid configuration: \(problem)")
        }
        self.configuration = configuration
        receiptsPath = parsed.required("receipts")
        trust = try TrustOptions(parsed, command: Self.spec.name)
    }

    /// Stores every usable line; the exit status is 1 when a line was rejected.
    func run(output: OutputFile, errors: OutputFile) throws(CLIError) -> Int32 {
        let document = try CommonOptions.catalogDocument(configuration.catalogPath)
        let catalog = document.catalog
        let signedData = try trust.verifier(catalog: document)
        let file: ReceiptsFile
        do { file = try ReceiptsFile(path: receiptsPath, catalog: catalog, signedData: signedData) } catch { throw CLIError(error, command: Self.spec.name) }
        let service = try ServeCommand.openService(configuration, catalog: catalog)
        defer { service.close() }
        var (stored, rejected) = (0, 0)
        while true {
            let lines: [ReceiptsFile.Line]
            do { lines = try file.next(maxLines: configuration.maxCommitBatch) } catch { throw CLIError(error, command: Self.spec.name) }
            if lines.isEmpty { break }
            let problems = try store(lines, in: service)
            for (line, reason) in problems { try errors.write("\(file.path):\(line): \(reason)\n") }
            stored += lines.count - problems.count
            rejected += problems.count
        }
        let unverified = trust.trustVerified ? " (signatures not verified: --trust-verified)" : ""
        try output.write("import: \(stored) line(s) stored in \(configuration.database), \(rejected) rejected\(unverified)\n")
        return rejected > 0 ? 1 : 0
    }

    /// Stores the users of `lines` (purchases and grants) and answers the lines that stored
    /// nothing, in line order: those that cannot be used, those the restore behaviour refused,
    /// and those with a grant id another user holds.
    /// - Throws: ``CLIError/cannotWrite(path:reason:)`` when the database fails.
    private func store(_ lines: [ReceiptsFile.Line], in service: EntitlementService) throws(CLIError) -> [(line: Int, reason: String)] {
        var problems: [(line: Int, reason: String)] = []
        var users: [UserReceipt] = []
        for line in lines {
            switch line {
            case .user(let user): users.append(user)
            case .rejected(let number, let reason): problems.append((number, reason))
            }
        }
        for (user, failure) in zip(users, service.store(users.map { ($0.userId, $0.history, $0.latestReceipt) })) {
            guard let failure else { continue }
            switch failure {
            case StorageError.receiptAlreadyInUse, StorageError.grantBelongsToAnotherUser: break
            default: throw CLIError.cannotWrite(path: "\(configuration.database)", reason: "\(failure)")
            }
            problems.append((user.line, "\(failure)"))
        }
        return problems.sorted { $0.line < $1.line }
    }
}
