import Masthead
import MastheadAppStore
import MastheadService
import MastheadStorage

/// `masthead migrate`: moves the subscriptions known only from receipts to signed data, asking
/// Apple's App Store Server API for each one's history once.
struct MigrateCommand: MastheadCommand {
    static let spec = CommandSpec(
        name: "migrate", summary: "Move receipt-only subscriptions to signed data from the App Store Server API.",
        description: """
            For every subscription in the service's database that has only receipt data (no
            transaction signed by Apple), asks the App Store Server API once for its history (Get
            Transaction History with its original transaction id) and its renewal info (Get All
            Subscription Statuses), verifies every signed token, and merges them with what is stored:
            the state Apple signed wins (R2.8), links to users are kept. Afterwards the subscription is
            polled through the App Store Server API. Prints one line per subscription (transactions
            added, changed, confirmed; whether the renewal info is new), then a summary.

            --dry-run asks Apple and prints the same lines, writing nothing. Each subscription is
            written in its own transaction: a run that fails part way is resumed by running it again,
            and a second run finds nothing to migrate. Needs the MASTHEAD_APP_STORE_KEY_ID,
            MASTHEAD_APP_STORE_ISSUER_ID and MASTHEAD_APP_STORE_PRIVATE_KEY_FILE (or
            MASTHEAD_APP_STORE_PRIVATE_KEY) secrets and appStoreBundleId; uses the same configuration
            as 'masthead serve' and may run beside it on the same database. Exit status 1 when any
            subscription failed.
            """,
        options: ["catalog", "database"].compactMap(ServiceConfiguration.setting).map(ServeCommand.option) + [
            CommonOptions.configOption("JSON file of settings (see 'masthead serve --help')."),
            .flag("dry-run", "Ask Apple and report what would change; write nothing."),
        ])
    let configuration: ServiceConfiguration
    let dryRun: Bool

    init(_ parsed: Arguments, now: Instant) throws(CLIError) {
        try self.init(parsed, environment: ServeCommand.secretsFromEnvironment())
    }

    /// Reads the arguments, with the secrets from `environment`.
    init(_ parsed: Arguments, environment: [String: String]) throws(CLIError) {
        configuration = try ServeCommand.configuration(parsed, command: Self.spec.name, environment: environment, use: .appStoreServerAPI).configuration
        // Checked before the database is opened, so a run without the key creates nothing.
        let credentials: AppStoreCredentials?
        do { credentials = try configuration.appStoreCredentials() } catch { throw CLIError.configuration(error.description) }
        guard credentials != nil else { throw CLIError.configuration(Self.keyMissing) }
        dryRun = parsed.flag("dry-run")
    }

    /// The error of a run without the App Store Server API key.
    static let keyMissing =
        "migrate: the App Store Server API key is not configured: set MASTHEAD_APP_STORE_KEY_ID, MASTHEAD_APP_STORE_ISSUER_ID and MASTHEAD_APP_STORE_PRIVATE_KEY_FILE"

    func run(output: OutputFile, errors: OutputFile) throws(CLIError) -> Int32 {
        let (service, client) = try ServeCommand.openServiceAskingApple(configuration)
        defer { service.close() }
        guard let client else { throw CLIError.configuration(Self.keyMissing) }
        let report: ReceiptMigration.Report
        do { report = try ReceiptMigration(service: service, appStoreServerAPI: client).run(dryRun: dryRun) } catch {
            throw CLIError.cannotRead(path: "\(configuration.database)", reason: "\(error)")
        }
        var text = ""
        for outcome in report.migrated { text += "  \(outcome.line)\n" }
        for failure in report.failures {
            text += "  \(failure.subscription.environment.rawValue) \(failure.subscription.originalTransactionId): failed: \(failure.reason)\n"
        }
        text += "migrate\(dryRun ? " (dry run, nothing written)" : ""): \(report.summary)\n"
        try output.write(text)
        return report.failures.isEmpty ? 0 : 1
    }
}
