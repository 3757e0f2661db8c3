import Dispatch
import Foundation
import Glibc
import Masthead
import MastheadHTTP
import MastheadService

/// `masthead serve`: the companion service on HTTP.
struct ServeCommand {
    static let name = "serve"
    let configuration: ServiceConfiguration

    init(_ arguments: [String]) throws(CLIError) {
        let parsed = try Arguments(arguments, options: ["catalog", "database", "host", "port", "config"], command: Self.name)
        configuration = try ServeCommand.configuration(parsed, command: Self.name)
    }

    /// Defaults, then the configuration file, then the flags, then the secrets from the environment; validated.
    /// - Parameter callerTokens: whether the API and admin tokens are required (not for `refresh`).
    static func configuration(_ parsed: Arguments, command: String, callerTokens: Bool = true) throws(CLIError) -> ServiceConfiguration {
        var configuration = ServiceConfiguration()
        do {
            if let file = parsed.value("config") { try configuration.apply(configurationFile: try Files.read(file), file: file) }
            if let catalog = parsed.value("catalog") { configuration.catalogPath = catalog }
            if let database = parsed.value("database") { configuration.databasePath = database }
            if let host = parsed.value("host") { configuration.http.host = host }
            if let port = parsed.value("port") {
                guard let number = UInt16(port) else { throw CLIError.usage("\(command): --port must be a number from 0 to 65535, not '\(port)'") }
                configuration.http.port = number
            }
            var environment: [String: String] = [:]
            for name in ["MASTHEAD_API_TOKEN", "MASTHEAD_ADMIN_TOKEN", "MASTHEAD_APP_STORE_SHARED_SECRET"] {
                if let value = getenv(name) { environment[name] = String(cString: value) }
            }
            configuration.applyEnvironment(environment)
            try configuration.validate(callerTokens: callerTokens)
        } catch let error as ConfigurationError {
            throw CLIError.configuration(error.description)
        } catch let error as CLIError {
            throw error
        } catch {
            throw CLIError.configuration("\(error)")
        }
        return configuration
    }

    func run(output: OutputFile, errors: OutputFile) throws(CLIError) -> Int32 {
        // SIGTERM and SIGINT are blocked before any thread starts (threads inherit the mask) and
        // taken by one thread with sigwait, so none can be lost to another thread's handler.
        var stopSignals = sigset_t()
        sigemptyset(&stopSignals)
        sigaddset(&stopSignals, SIGTERM)
        sigaddset(&stopSignals, SIGINT)
        pthread_sigmask(SIG_BLOCK, &stopSignals, nil)
        // A client gone mid-answer must be an error on that socket, not the end of the service.
        signal(SIGPIPE, SIG_IGN)
        let service = try ServeCommand.openService(configuration)
        let server: HTTPServer
        do {
            let router = ServiceRouter(service: service)
            server = try HTTPServer(
                configuration: configuration.http, headCheck: router.headCheck, errorResponse: router.errorResponse, handler: router.handler)
            try server.start()
        } catch {
            service.close()
            throw CLIError.configuration("cannot listen on \(configuration.http.host):\(configuration.http.port): \(error)")
        }
        let signals = stopSignals
        let waiter = Thread {
            var set = signals
            var received: Int32 = 0
            while sigwait(&set, &received) == 0 { server.stop() }
        }
        waiter.name = "stop-signals"
        waiter.start()
        let poller = configuration.pollingEnabled ? startPolling(service, errors: errors) : nil
        // Announced only once the stop signals are handled, so a supervisor may signal right away.
        try output.write("listening on \(server.host):\(server.port)\n")
        try output.flush()
        server.waitUntilStopped()
        poller?.cancel()
        service.close()
        try errors.write("masthead: stopped; the database is closed\n")
        return 0
    }

    /// Loads the catalog and opens the service's database (applying migrations).
    static func openService(_ configuration: ServiceConfiguration) throws(CLIError) -> EntitlementService {
        let catalog = try CommonOptions.catalog(configuration.catalogPath)
        do {
            return try EntitlementService(configuration: configuration, catalog: catalog, clock: { MastheadTool.currentInstant() })
        } catch {
            throw CLIError.cannotWrite(path: configuration.databasePath, reason: "\(error)")
        }
    }

    private func startPolling(_ service: EntitlementService, errors: OutputFile) -> any DispatchSourceTimer {
        let refresher = Refresher(service: service, client: VerifyReceiptClient(configuration: configuration))
        let window = Int64(configuration.pollingWindowSeconds) * 1000
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "polling"))
        timer.schedule(deadline: .now() + .seconds(configuration.pollingIntervalSeconds), repeating: .seconds(configuration.pollingIntervalSeconds))
        timer.setEventHandler {
            let line: String
            do {
                let report = try refresher.run(within: window)
                line = "polling: \(report.due) due, \(report.refreshed) refreshed, \(report.withoutReceipt) without receipt, \(report.failures.count) failed\n"
            } catch {
                line = "polling failed: \(error)\n"
            }
            let bytes = Array(line.utf8)
            _ = bytes.withUnsafeBytes { Glibc.write(2, $0.baseAddress, $0.count) }
        }
        timer.resume()
        return timer
    }
}
