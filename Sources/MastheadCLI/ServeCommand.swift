import Dispatch
import Foundation
import Glibc
import Masthead
import MastheadAppStore
import MastheadClock
import MastheadFormats
import MastheadHTTP
import MastheadService

/// `masthead serve`: the companion service on HTTP.
struct ServeCommand {
    static let spec = CommandSpec(
        name: "serve", summary: "Run the companion service: receipts, notifications, download checks over HTTP.",
        description: """
            Runs the companion service. Once it accepts connections it prints 'listening on HOST:PORT'.
            SIGTERM or SIGINT stop it gracefully: no new connections, requests in flight finish, the
            database is closed.

            Every option after --config is a setting, and also a key of the --config file (a JSON
            object such as {"port": 0, "polling": true}); a flag given here wins over the file.
            """,
        options: [configOption] + ServiceConfiguration.settings.map(option),
        epilogue: "Secrets come from the environment only:\n" + ServiceConfiguration.secrets.map { secret in
            "  " + secret.variable + String(repeating: " ", count: secretsWidth - secret.variable.count) + secret.help
        }.joined(separator: "\n")
            + "\nThe API token, the admin token and the shared secret must all be different.\n"
            + "At start the soft open-file limit is raised (up to the hard one) to threads x maxConnectionsPerThread + 64;\n"
            + "below that a warning is printed, and out of descriptors accepting pauses 100 ms at a time.")

    /// The secrets' column in the help: the longest variable name and two spaces.
    private static let secretsWidth = (ServiceConfiguration.secrets.map(\.variable.count).max() ?? 0) + 2

    /// `--config FILE`.
    static let configOption = OptionSpec.value("config", "FILE", "JSON file of settings (below); flags given here win over it.")

    /// A setting of the settings table as an option: its key as the flag's name, its help and default.
    static func option(_ setting: ServiceSetting) -> OptionSpec {
        let help = "\(setting.help.dropLast()) (default \(setting.defaultText))."
        guard let valueName = setting.valueName else { return .flag(setting.key, help) }
        return .value(setting.key, valueName, help)
    }

    let configuration: ServiceConfiguration

    init(_ arguments: [String], environment: [String: String] = ServeCommand.secretsFromEnvironment()) throws(CLIError) {
        let parsed = try Arguments(arguments, spec: Self.spec)
        configuration = try ServeCommand.configuration(parsed, command: Self.spec.name, environment: environment)
    }

    /// The secrets' environment variables that are set.
    static func secretsFromEnvironment() -> [String: String] {
        var environment: [String: String] = [:]
        for secret in ServiceConfiguration.secrets {
            if let value = getenv(secret.variable) { environment[secret.variable] = String(cString: value) }
        }
        return environment
    }

    /// Defaults, then the configuration file, then the settings given as flags, then the secrets
    /// from `environment`; validated.
    /// - Parameter callerTokens: whether the API and admin tokens are required (not for `refresh`).
    static func configuration(
        _ parsed: Arguments, command: String, environment: [String: String], callerTokens: Bool = true
    ) throws(CLIError) -> ServiceConfiguration {
        var configuration = try settings(parsed, command: command)
        configuration.applyEnvironment(environment)
        do { try configuration.validate(callerTokens: callerTokens) } catch { throw CLIError.configuration(error.description) }
        return configuration
    }

    /// Defaults, then the configuration file, then the settings given as flags (without secrets,
    /// not validated).
    static func settings(_ parsed: Arguments, command: String) throws(CLIError) -> ServiceConfiguration {
        var configuration = ServiceConfiguration()
        if let file = parsed.value("config") {
            let bytes = try Files.read(file)
            do { try configuration.apply(configurationFile: bytes, file: file) } catch { throw CLIError.configuration(error.description) }
        }
        for setting in ServiceConfiguration.settings {
            let value: String?
            if setting.valueName == nil {
                guard parsed.flag(setting.key) else { continue }
                value = nil
            } else {
                guard let text = parsed.value(setting.key) else { continue }
                value = text
            }
            do { try setting.apply(flag: value, to: &configuration) } catch { throw CLIError.usage("\(command): \(error.message)") }
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
        try ServeCommand.raiseDescriptorLimit(configuration.http, errors: errors)
        let service = try ServeCommand.openService(configuration)
        let server: HTTPServer
        do {
            let router = ServiceRouter(service: service)
            server = try HTTPServer(
                configuration: configuration.http, headCheck: router.headCheck, errorResponse: router.errorResponse, counters: router.httpCounters,
                handler: router.handler)
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
        let poller: (any DispatchSourceTimer)?
        do { poller = configuration.pollingEnabled ? try startPolling(service) : nil } catch {
            server.stop()
            server.waitUntilStopped()
            service.close()
            throw CLIError.configuration(error.description)
        }
        // Announced only once the stop signals are handled, so a supervisor may signal right away.
        try output.write("listening on \(server.host):\(server.port)\n")
        try output.flush()
        server.waitUntilStopped()
        poller?.cancel()
        service.close()
        try errors.write("masthead: stopped; the database is closed\n")
        return 0
    }

    /// Raises the open-file limit to what `threads × maxConnectionsPerThread` connections need (up
    /// to the hard limit) and, when it stays lower, says so: past it new connections wait in the
    /// listen queue (accepting pauses 100 ms at a time) until one closes.
    static func raiseDescriptorLimit(_ http: HTTPServerConfiguration, errors: OutputFile) throws(CLIError) {
        let limit = DescriptorLimit.raise(toServe: http)
        guard !limit.isEnough else { return }
        try errors.write(
            "masthead: warning: the open-file limit is \(limit.limit) (hard limit \(limit.hardLimit)) but threads × maxConnectionsPerThread "
                + "(\(http.threads) × \(http.maxConnectionsPerThread)) and \(DescriptorLimit.reserved) more need \(limit.needed): past it new "
                + "connections wait until one closes; raise the limit (ulimit -n, LimitNOFILE=) or lower maxConnectionsPerThread\n")
        try errors.flush()
    }

    /// Opens the service's database (applying migrations) with `catalog`, or the configured
    /// catalog folder's when nil.
    static func openService(_ configuration: ServiceConfiguration, catalog: Catalog? = nil) throws(CLIError) -> EntitlementService {
        let catalog = if let catalog { catalog } else { try CommonOptions.catalog(configuration.catalogPath) }
        do {
            return try EntitlementService(configuration: configuration, catalog: catalog, clock: { SystemClock.now() })
        } catch {
            throw CLIError.cannotWrite(path: "\(configuration.database)", reason: "\(error)")
        }
    }

    private func startPolling(_ service: EntitlementService) throws(ConfigurationError) -> any DispatchSourceTimer {
        let refresher = Refresher(
            service: service, client: VerifyReceiptClient(configuration: configuration), appStoreServerAPI: try service.appStoreServerAPIClient())
        let window = Int64(configuration.pollingWindowSeconds) * 1000
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "polling"))
        timer.schedule(deadline: .now() + .seconds(configuration.pollingIntervalSeconds), repeating: .seconds(configuration.pollingIntervalSeconds))
        timer.setEventHandler {
            let line: String
            do {
                let report = try refresher.run(within: window)
                line = "polling: \(report.summary)\n"
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
