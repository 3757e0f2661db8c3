import Glibc
import Masthead
import MastheadService

/// `masthead refresh`: re-verifies with Apple the subscriptions about to expire, once.
struct RefreshCommand {
    static let spec = CommandSpec(
        name: "refresh", summary: "Re-verify with Apple the subscriptions about to expire, once.",
        description: """
            Re-verifies with Apple's verifyReceipt endpoint the latest receipt of every subscription
            whose expiry lies within the window from now, and stores the answers like posted receipts.
            Uses the same configuration as 'masthead serve' and, of its secrets, only
            MASTHEAD_APP_STORE_SHARED_SECRET (the verifyReceipt password). It may run beside a running
            'masthead serve' on the same database, which answers from the stored renewals at once.
            Exit status 1 when any failed.
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
        let report: Refresher.Report
        do {
            report = try Refresher(service: service, client: VerifyReceiptClient(configuration: configuration)).run(within: window)
        } catch {
            throw CLIError.cannotRead(path: "\(configuration.database)", reason: "\(error)")
        }
        var text = "refresh: \(report.due) due, \(report.refreshed) refreshed, \(report.withoutReceipt) without a stored receipt, \(report.failures.count) failed\n"
        for failure in report.failures { text += "  \(failure.originalTransactionId): \(failure.reason)\n" }
        try output.write(text)
        return report.failures.isEmpty ? 0 : 1
    }
}
