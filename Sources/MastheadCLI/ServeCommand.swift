import Dispatch
import Foundation
import Glibc
import Masthead
import MastheadAppStore
import MastheadClock
import MastheadFormats
import MastheadHTTP
import MastheadService
import MastheadSockets
import MastheadStorage

/// `masthead serve`: the companion service on HTTP.
struct ServeCommand: MastheadCommand {
    static let spec = CommandSpec(
        name: "serve", summary: "Run the companion service: receipts, notifications, download checks over HTTP.",
        description: """
            Runs the companion service. It binds its port before it opens the database: a port in
            use, or an address not up yet, exits 75 (try again later) and creates nothing. It says
            on standard error what signed data it takes in (the app appStoreBundleId names, else the
            catalog's "app") or why none, and once it accepts connections prints 'listening on
            HOST:PORT'. SIGTERM or SIGINT stop it gracefully: no new connections, requests in flight
            finish, the write-ahead log is checkpointed into the database file (a copy of the file
            alone is then complete) and the database is closed.

            Every option after --config is a setting, and also a key of the --config file (a JSON
            object such as {"port": 0, "polling": true}); a flag given here wins over the file.
            """,
        options: [CommonOptions.configOption("JSON file of settings (below); flags given here win over it.")]
            + ServiceConfiguration.settings.map(option),
        epilogue: "Secrets come from the environment only:\n" + ServiceConfiguration.secrets.map { secret in
            "  " + secret.variable + String(repeating: " ", count: secretsWidth - secret.variable.count) + secret.help
        }.joined(separator: "\n")
            + "\nThe API token, the admin token and the shared secret must all be different.\n"
            + "At start the soft open-file limit is raised (up to the hard one) to threads x maxConnectionsPerThread + 64;\n"
            + "below that maxConnectionsPerThread is lowered to (limit - 64) / threads (at least 1), so that 64 descriptors\n"
            + "stay for the database, the access log and Apple, and a warning is printed; out of descriptors accepting pauses\n"
            + "100 ms at a time.")

    /// The secrets' column in the help: the longest variable name and two spaces.
    private static let secretsWidth = (ServiceConfiguration.secrets.map(\.variable.count).max() ?? 0) + 2

    /// A setting of the settings table as an option: its key as the flag's name, its help and default.
    static func option(_ setting: ServiceSetting) -> OptionSpec {
        let help = "\(setting.help.dropLast()) (default \(setting.defaultText))."
        guard let valueName = setting.valueName else { return .flag(setting.key, help) }
        return .value(setting.key, valueName, help)
    }

    let configuration: ServiceConfiguration
    /// The catalog, loaded once.
    let catalog: Catalog
    /// What signed data the service takes in, or why none: its start-up line.
    let signedData: String

    init(_ parsed: Arguments, now: Instant) throws(CLIError) {
        try self.init(parsed, environment: Self.secretsFromEnvironment())
    }

    /// Reads the arguments, with the secrets from `environment`.
    init(_ parsed: Arguments, environment: [String: String]) throws(CLIError) {
        let loaded = try ServeCommand.configuration(parsed, command: Self.spec.name, environment: environment)
        configuration = loaded.configuration
        catalog = loaded.catalog.catalog
        signedData = ServeCommand.signedDataLine(configuration, app: loaded.app)
    }

    /// The secrets' environment variables that are set.
    static func secretsFromEnvironment() -> [String: String] {
        var environment: [String: String] = [:]
        for secret in ServiceConfiguration.secrets {
            if let value = getenv(secret.variable) { environment[secret.variable] = String(cString: value) }
        }
        return environment
    }

    /// A configuration with the catalog it names, and where its app came from.
    struct Loaded {
        var configuration: ServiceConfiguration
        var catalog: CatalogDocument
        var app: AppSource
    }

    /// Where the app whose signed data is taken in is named.
    enum AppSource {
        /// `appStoreBundleId` (a file's or a flag's).
        case setting
        /// The catalog's `"app"` object, in this file.
        case catalog(file: String)
        /// Nowhere: signed data is refused; `file` is the catalog that names no app.
        case none(file: String)
    }

    /// Defaults, then the configuration file, then the settings given as flags, then the catalog's
    /// `"app"` for what they leave unset (as `check`, `audit` and `import` read it), then the
    /// secrets from `environment`; validated for `use`, every problem reported at once.
    static func configuration(
        _ parsed: Arguments, command: String, environment: [String: String], use: ServiceConfiguration.Use = .serve
    ) throws(CLIError) -> Loaded {
        var configuration = try settings(parsed, command: command)
        let file = CommonOptions.catalogFile(configuration.catalogPath)
        let catalog = try CommonOptions.catalogDocument(configuration.catalogPath)
        let app = applyCatalogApp(catalog.app, file: file, to: &configuration)
        configuration.applyEnvironment(environment)
        do { try configuration.validate(for: use) } catch { throw CLIError.configuration(error.description) }
        return Loaded(configuration: configuration, catalog: catalog, app: app)
    }

    /// Takes the catalog's app for signed data when no `appStoreBundleId` is set: its bundle id,
    /// and its App Apple ID unless `appStoreAppAppleId` is set (the settings win, field by field).
    static func applyCatalogApp(_ app: CatalogApp?, file: String, to configuration: inout ServiceConfiguration) -> AppSource {
        guard configuration.appStoreBundleId.isEmpty else { return .setting }
        guard let app else { return .none(file: file) }
        configuration.appStoreBundleId = app.bundleId
        if configuration.appStoreAppAppleId == 0, let appAppleId = app.appAppleId { configuration.appStoreAppAppleId = Int(appAppleId) }
        return .catalog(file: file)
    }

    /// The start-up line saying what signed data is taken in (bundle id and where it was named,
    /// App Apple ID, environments, roots), or why none is.
    static func signedDataLine(_ configuration: ServiceConfiguration, app: AppSource) -> String {
        let source: String
        switch app {
        case .setting: source = "appStoreBundleId"
        case .catalog(let file): source = "the \"app\" of \(file)"
        case .none(let file):
            return "signed data: refused: no appStoreBundleId is set and \(file) has no \"app\" object ({\"bundleId\": \"...\"})"
        }
        let appAppleId = configuration.appStoreAppAppleId == 0 ? "not checked" : String(configuration.appStoreAppAppleId)
        let roots = configuration.appStoreRootCertificates.isEmpty ? "Apple Root CA - G3" : configuration.appStoreRootCertificates.joined(separator: ", ")
        return "signed data: accepted for bundle id \(configuration.appStoreBundleId) (from \(source)), App Apple ID \(appAppleId), "
            + "environments \(configuration.appStoreEnvironments.joined(separator: ", ")), roots \(roots)"
    }

    /// Defaults, then the configuration file, then the settings given as flags (without secrets,
    /// not validated); every invalid flag reported at once.
    static func settings(_ parsed: Arguments, command: String) throws(CLIError) -> ServiceConfiguration {
        var configuration = ServiceConfiguration()
        if let file = parsed.value(CommonOptions.configName) {
            let bytes = try Files.read(file)
            do { try configuration.apply(configurationFile: bytes, file: file) } catch { throw CLIError.configuration(error.description) }
        }
        var problems: [String] = []
        for setting in ServiceConfiguration.settings {
            let value: String?
            if setting.valueName == nil {
                guard parsed.flag(setting.key) else { continue }
                value = nil
            } else {
                guard let text = parsed.value(setting.key) else { continue }
                value = text
            }
            do { try setting.apply(flag: value, to: &configuration) } catch { problems.append(error.message) }
        }
        if !problems.isEmpty { throw CLIError.usage("\(command): " + problems.joined(separator: "\n\(command): ")) }
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
        // Once serving returns nothing holds the service any more: its reader connection is
        // closed too, the last one, so SQLite removes the (checkpointed, empty) -wal and -shm files.
        if let failure = try serve(stopSignals, output: output, errors: errors) {
            try errors.write("masthead: stopped; the database is closed, but its write-ahead log could not be checkpointed (\(failure)): keep the -wal file with it\n")
        } else {
            try errors.write("masthead: stopped; the database is closed\n")
        }
        return 0
    }

    /// Serves until a stop signal, then stops the server, the polling and the access log and
    /// closes the service; answers why the database's checkpoint failed, or nil.
    private func serve(_ stopSignals: sigset_t, output: OutputFile, errors: OutputFile) throws(CLIError) -> StorageError? {
        let http = try ServeCommand.raiseDescriptorLimit(configuration.http, errors: errors)
        // The port first: a start that cannot listen leaves no database behind.
        let listener = try ServeCommand.listen(configuration)
        let accessLog = try openAccessLog()
        let service: EntitlementService
        do { service = try ServeCommand.openService(configuration, catalog: catalog) } catch {
            accessLog?.close()
            throw error
        }
        let router = ServiceRouter(service: service, accessLog: accessLog)
        let server = HTTPServer(
            configuration: http, listener: listener, headCheck: router.headCheck, errorResponse: router.errorResponse,
            counters: router.httpCounters, handler: router.handler)
        do { try server.start() } catch {
            service.close()
            accessLog?.close()
            throw CLIError.configuration("cannot serve on \(configuration.http.host):\(configuration.http.port): \(error)")
        }
        let signals = stopSignals
        // Weak: the waiter outlives serving, and must not keep the server (and through its
        // handler, the service and its connections) alive.
        let waiter = Thread { [weak server] in
            var set = signals
            var received: Int32 = 0
            while sigwait(&set, &received) == 0 { server?.stop() }
        }
        waiter.name = "stop-signals"
        waiter.start()
        let pollingQueue = DispatchQueue(label: "polling")
        let poller: (any DispatchSourceTimer)?
        do { poller = configuration.pollingEnabled ? try startPolling(service, on: pollingQueue) : nil } catch {
            server.stop()
            server.waitUntilStopped()
            service.close()
            accessLog?.close()
            throw CLIError.configuration(error.description)
        }
        try errors.write(signedData + "\n")
        try errors.flush()
        // Announced only once the stop signals are handled, so a supervisor may signal right away.
        try output.write("listening on \(server.host):\(server.port)\n")
        try output.flush()
        server.waitUntilStopped()
        poller?.cancel()
        // A poll already running finishes before the database closes.
        pollingQueue.sync {}
        accessLog?.close()
        return service.close()
    }

    /// The access log the `accessLog` setting names, opened; nil when it is empty.
    private func openAccessLog() throws(CLIError) -> AccessLog? {
        guard !configuration.accessLog.isEmpty else { return nil }
        do { return try AccessLog(destination: configuration.accessLog) } catch {
            throw CLIError.configuration(error.description)
        }
    }

    /// Binds the listening socket. A port in use or an address not (yet) available is a
    /// temporary failure (75), which a supervisor retries; anything else is a configuration error.
    static func listen(_ configuration: ServiceConfiguration) throws(CLIError) -> ListeningSocket {
        let address = "\(configuration.http.host):\(configuration.http.port)"
        do { return try ListeningSocket(host: configuration.http.host, port: configuration.http.port) } catch {
            if error.errno == EADDRINUSE || error.errno == EADDRNOTAVAIL {
                throw CLIError.temporaryFailure("cannot listen on \(address) now: \(error); nothing was started, try again later")
            }
            throw CLIError.configuration("cannot listen on \(address): \(error)")
        }
    }

    /// Raises the open-file limit to what `threads × maxConnectionsPerThread` connections need (up
    /// to the hard limit) and answers the configuration to serve with: when the limit stays lower,
    /// `maxConnectionsPerThread` lowered so that ``DescriptorLimit/reserved`` descriptors stay for
    /// the database, the access log and the outgoing connections (more connections are answered
    /// 503), which it says.
    static func raiseDescriptorLimit(_ http: HTTPServerConfiguration, errors: OutputFile) throws(CLIError) -> HTTPServerConfiguration {
        let limit = DescriptorLimit.raise(toServe: http)
        guard !limit.isEnough else { return http }
        var lowered = http
        lowered.maxConnectionsPerThread = limit.connectionsPerThread(threads: http.threads)
        try errors.write(
            "masthead: warning: the open-file limit is \(limit.limit) (hard limit \(limit.hardLimit)) but threads × maxConnectionsPerThread "
                + "(\(http.threads) × \(http.maxConnectionsPerThread)) and \(DescriptorLimit.reserved) more need \(limit.needed): "
                + "maxConnectionsPerThread is lowered to \(lowered.maxConnectionsPerThread) so that \(DescriptorLimit.reserved) stay for the "
                + "database, the access log and Apple (more connections are answered 503); raise the limit (ulimit -n, LimitNOFILE=) "
                + "or lower maxConnectionsPerThread\n")
        try errors.flush()
        return lowered
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

    private func startPolling(_ service: EntitlementService, on queue: DispatchQueue) throws(ConfigurationError) -> any DispatchSourceTimer {
        let refresher = Refresher(
            service: service, client: VerifyReceiptClient(configuration: configuration), appStoreServerAPI: try service.appStoreServerAPIClient())
        let window = Int64(configuration.pollingWindowSeconds) * 1000
        let timer = DispatchSource.makeTimerSource(queue: queue)
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
