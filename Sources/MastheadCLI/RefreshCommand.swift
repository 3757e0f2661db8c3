import Glibc
import Masthead
import MastheadAppStore
import MastheadService

/// `masthead refresh`: re-verifies with Apple the subscriptions about to expire, once.
struct RefreshCommand {
    static let spec = CommandSpec(
        name: "refresh", summary: "Ask Apple about the subscriptions about to expire, once.",
        description: """
            Asks Apple about every subscription whose expiry lies within the window from now. One
            with signed data is asked of the App Store Server API (Get All Subscription Statuses),
            whose verified answer is applied as a version 2 notification is; this needs the
            MASTHEAD_APP_STORE_KEY_ID, MASTHEAD_APP_STORE_ISSUER_ID and
            MASTHEAD_APP_STORE_PRIVATE_KEY_FILE (or MASTHEAD_APP_STORE_PRIVATE_KEY) secrets, without
            which it is reported as not polled. Receipts are re-verified with verifyReceipt and
            stored like posted receipts. Uses the same configuration as 'masthead serve' and, of its
            secrets, MASTHEAD_APP_STORE_SHARED_SECRET (the verifyReceipt password) and the App Store
            Server API key. It may run beside a running 'masthead serve' on the same database, which
            answers from the stored renewals at once. Exit status 1 when any failed.
            """,
        options: ["catalog", "database"].compactMap(ServiceConfiguration.setting).map(ServeCommand.option) + [
            .value("config", "FILE", "JSON file of settings (see 'masthead serve --help')."),
            .value("within", "DURATION", "How far ahead to look: 3d, 12h, 30m, 45s (default: pollingWindowSeconds)."),
        ])
    let configuration: ServiceConfiguration
    let window: Int64

    init(_ arguments: [String], environment: [String: String] = ServeCommand.secretsFromEnvironment()) throws(CLIError) {
        let parsed = try Arguments(arguments, spec: Self.spec)
        configuration = try ServeCommand.configuration(parsed, command: Self.spec.name, environment: environment, callerTokens: false)
        if let text = parsed.value("within") {
            guard let milliseconds = ServiceConfiguration.milliseconds(fromDuration: text) else {
                throw CLIError.usage("refresh: --within must be a number followed by d, h, m or s, such as 3d")
            }
            window = milliseconds
        } else {
            window = Int64(configuration.pollingWindowSeconds) * 1000
        }
    }

    func run(output: OutputFile) throws(CLIError) -> Int32 {
        signal(SIGPIPE, SIG_IGN)  // URLSession's transport may write to a connection Apple closed.
        let service = try ServeCommand.openService(configuration)
        defer { service.close() }
        let appStoreServerAPI: AppStoreServerAPIClient?
        do { appStoreServerAPI = try service.appStoreServerAPIClient() } catch { throw CLIError.configuration(error.description) }
        let report: Refresher.Report
        do {
            let refresher = Refresher(service: service, client: VerifyReceiptClient(configuration: configuration), appStoreServerAPI: appStoreServerAPI)
            report = try refresher.run(within: window)
        } catch {
            throw CLIError.cannotRead(path: "\(configuration.database)", reason: "\(error)")
        }
        var text = "refresh: \(report.summary)\n"
        for failure in report.failures { text += "  \(failure.originalTransactionId): \(failure.reason)\n" }
        try output.write(text)
        return report.failures.isEmpty ? 0 : 1
    }
}
