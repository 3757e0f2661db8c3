import Foundation
import Glibc
import Masthead
import MastheadAppStore
import MastheadFormats
import MastheadService
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

            With the App Store Server API key in the environment, a subscription bought without an
            app account token and linked to a user who has one is given the user's first token at
            Apple (Set App Account Token) once, after the link is answered, by a timer every
            appAccountTokenUpdateIntervalSeconds; each outcome is a line on standard error.

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
        if let failure = try serve(output: output, errors: errors) {
            try errors.write("masthead: stopped; the database is closed, but its write-ahead log could not be checkpointed (\(failure)): keep the -wal file with it\n")
        } else {
            try errors.write("masthead: stopped; the database is closed\n")
        }
        return 0
    }

    /// Serves until a stop signal (``ServiceProcess``); answers why the database's checkpoint
    /// failed, or nil. Once it returns nothing holds the service any more: its reader connection
    /// is closed too, the last one, so SQLite removes the (checkpointed, empty) -wal and -shm files.
    private func serve(output: OutputFile, errors: OutputFile) throws(CLIError) -> StorageError? {
        let process: ServiceProcess
        do {
            process = try ServiceProcess.start(configuration: configuration, catalog: catalog) { warning in
                try? errors.write(warning)
                try? errors.flush()
            }
        } catch {
            throw CLIError(error)
        }
        try errors.write(signedData + "\n")
        try errors.flush()
        // Announced only once the stop signals are handled, so a supervisor may signal right away.
        try output.write("listening on \(process.host):\(process.port)\n")
        try output.flush()
        return process.waitUntilStopped()
    }

    /// Opens the service's database (applying migrations) with `catalog`, or the configured
    /// catalog folder's when nil.
    static func openService(_ configuration: ServiceConfiguration, catalog: Catalog? = nil) throws(CLIError) -> EntitlementService {
        let catalog = if let catalog { catalog } else { try CommonOptions.catalog(configuration.catalogPath) }
        do { return try ServiceProcess.openService(configuration, catalog: catalog) } catch { throw CLIError(error) }
    }

    /// Opens the service of a command that asks the App Store Server API (`refresh`, `migrate`),
    /// with the API's client (nil without its key); the caller closes the service.
    static func openServiceAskingApple(_ configuration: ServiceConfiguration) throws(CLIError) -> (EntitlementService, AppStoreServerAPIClient?) {
        signal(SIGPIPE, SIG_IGN)  // The transport may write to a connection Apple closed.
        let service = try openService(configuration)
        do { return (service, try service.appStoreServerAPIClient()) } catch {
            service.close()
            throw CLIError.configuration(error.description)
        }
    }
}

extension CLIError {
    /// A service process's failure to start: a port not available now is a temporary failure
    /// (75), a store that cannot be opened cannot be written (73), anything else a configuration error.
    init(_ error: ServiceProcessError) {
        switch error {
        case .cannotListenNow(let message): self = .temporaryFailure(message)
        case .configuration(let message): self = .configuration(message)
        case .cannotOpenStore(let database, let reason): self = .cannotWrite(path: database, reason: reason)
        }
    }
}
