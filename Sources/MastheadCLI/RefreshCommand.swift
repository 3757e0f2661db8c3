import Glibc
import Masthead
import MastheadService

/// `masthead refresh`: re-verifies with Apple the subscriptions about to expire, once.
struct RefreshCommand {
    static let name = "refresh"
    let configuration: ServiceConfiguration
    let window: Int64

    init(_ arguments: [String]) throws(CLIError) {
        let parsed = try Arguments(arguments, options: ["catalog", "database", "config", "within"], command: Self.name)
        configuration = try ServeCommand.configuration(parsed, command: Self.name, callerTokens: false)
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
            throw CLIError.cannotRead(path: configuration.databasePath, reason: "\(error)")
        }
        var text = "refresh: \(report.due) due, \(report.refreshed) refreshed, \(report.withoutReceipt) without a stored receipt, \(report.failures.count) failed\n"
        for failure in report.failures { text += "  \(failure.originalTransactionId): \(failure.reason)\n" }
        try output.write(text)
        return report.failures.isEmpty ? 0 : 1
    }
}
