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
        configuration = try ServeCommand.configuration(parsed, command: Self.name)
        if let text = parsed.value("within") {
            guard let milliseconds = RefreshCommand.duration(text) else {
                throw CLIError.usage("refresh: --within must be a number followed by d, h, m or s, such as 3d")
            }
            window = milliseconds
        } else {
            window = Int64(configuration.pollingWindowSeconds) * 1000
        }
    }

    func run(output: OutputFile) throws(CLIError) -> Int32 {
        signal(SIGPIPE, SIG_IGN)  // URLSession's transport may write to a connection Apple closed.
        let catalog = try CommonOptions.catalog(configuration.catalogPath)
        let service: EntitlementService
        do {
            service = try EntitlementService(configuration: configuration, catalog: catalog, clock: { MastheadTool.currentInstant() })
        } catch {
            throw CLIError.cannotWrite(path: configuration.databasePath, reason: "\(error)")
        }
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

    static func duration(_ text: String) -> Int64? {
        guard let unit = text.last, let value = Int64(text.dropLast()), value >= 0, value < 100_000 else { return nil }
        switch unit {
        case "d": return value * 86_400_000
        case "h": return value * 3_600_000
        case "m": return value * 60_000
        case "s": return value * 1000
        default: return nil
        }
    }
}
