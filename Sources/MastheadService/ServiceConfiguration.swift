public import MastheadHTTP
public import MastheadStorage
import MastheadJSON

/// Everything `masthead serve` needs, with defaults; secrets come from the environment.
public struct ServiceConfiguration: Sendable {
    public var catalogPath = "Catalog/the-monthly"
    public var databasePath = "masthead.sqlite"
    /// Host, port and every HTTP limit.
    public var http = HTTPServerConfiguration()
    /// `Authorization: Bearer` token for callers (`MASTHEAD_API_TOKEN`).
    public var apiToken = ""
    /// Token for catalog changes (`MASTHEAD_ADMIN_TOKEN`).
    public var adminToken = ""
    /// The App Store shared secret: notification password and verifyReceipt password (`MASTHEAD_APP_STORE_SHARED_SECRET`).
    public var sharedSecret = ""
    /// What happens when a receipt names a subscription linked to another user.
    public var restore = RestoreBehaviour.transfer
    /// Most writes committed in one transaction.
    public var maxCommitBatch = 1000
    /// Poll Apple for subscriptions about to expire, every `pollingIntervalSeconds`.
    public var pollingEnabled = false
    public var pollingIntervalSeconds = 3600
    /// How far ahead polling looks for expiries, in seconds (3 days by default).
    public var pollingWindowSeconds = 3 * 86_400
    public var verifyReceiptProductionURL = "https://buy.itunes.apple.com/verifyReceipt"
    public var verifyReceiptSandboxURL = "https://sandbox.itunes.apple.com/verifyReceipt"
    /// Attempts per receipt when Apple answers a retryable status (21005, 21100–21199) or the network fails.
    public var verifyReceiptAttempts = 4
    /// The first retry waits this long; each next one twice as long.
    public var verifyReceiptBackoffMilliseconds = 500

    /// The defaults.
    public init() {}

    /// Every setting, its default and where it can be set, for `masthead serve --help`.
    public static let settingsHelp = """
        Configuration file keys (--config FILE, JSON) and their defaults:
          catalog                      "Catalog/the-monthly"   catalog folder (also --catalog)
          database                     "masthead.sqlite"       SQLite file (also --database)
          host                         "127.0.0.1"             (also --host)
          port                         8080                    0 picks a free port (also --port)
          threads                      2                       event-loop threads
          maxRequestLineBytes          8192                    longer request line: 414
          maxHeaderFieldBytes          81920                   longer header field: 431
          maxHeaderListBytes           81920                   larger header section: 431
          maxHeaderCount               1000                    more header fields: 431
          maxBodyBytes                 2097152                 larger body: 413
          idleTimeoutMilliseconds      60000                   idle keep-alive connections closed
          readTimeoutMilliseconds      10000                   a request not complete in time: 408
          handlerTimeoutMilliseconds   30000                   an answer not ready in time: 503
          maxConnectionsPerThread      10000                   more connections: 503
          maxPendingOutputBytes        1048576                 unread answers past it: stop reading
          maxPipelinedBytes            65536                   requests read ahead while one is answered
          restore                      "transfer"              transfer | keep | transferIfInactive
          maxCommitBatch               1000                    writes committed together at most
          polling                      false                   poll Apple for expiring subscriptions
          pollingIntervalSeconds       3600
          pollingWindowSeconds         259200                  look 3 days ahead
          verifyReceiptProductionURL   "https://buy.itunes.apple.com/verifyReceipt"
          verifyReceiptSandboxURL      "https://sandbox.itunes.apple.com/verifyReceipt"
          verifyReceiptAttempts        4                       tries on 21005, 21100-21199, network errors
          verifyReceiptBackoffMilliseconds 500                 first wait; doubled each retry

        Secrets come from the environment only:
          MASTHEAD_API_TOKEN                 Bearer token every endpoint but /health, /openapi.json and notifications requires
          MASTHEAD_ADMIN_TOKEN               Bearer token for PUT /v1/publications/{id}/issues/{issueId}
          MASTHEAD_APP_STORE_SHARED_SECRET   notification password and verifyReceipt password
        """

    /// Applies a JSON configuration file's settings; unknown keys and wrong types are errors.
    public mutating func apply(configurationFile bytes: [UInt8], file: String) throws(ConfigurationError) {
        let root: JSONValue
        do { root = try JSONDocument(parsing: bytes).root } catch { throw ConfigurationError.invalid("\(file): \(error)") }
        guard root.kind == .object else { throw ConfigurationError.invalid("\(file): expected a JSON object of settings") }
        for (key, value) in root.members {
            let name = key.string
            func text() throws(ConfigurationError) -> String {
                guard let text = value.string else { throw ConfigurationError.invalid("\(file): \(name) must be a string") }
                return text
            }
            func number() throws(ConfigurationError) -> Int {
                guard let number = value.int64, number >= 0, number <= Int64(Int32.max) else {
                    throw ConfigurationError.invalid("\(file): \(name) must be a whole number from 0 to \(Int32.max)")
                }
                return Int(number)
            }
            switch name {
            case "catalog": catalogPath = try text()
            case "database": databasePath = try text()
            case "host": http.host = try text()
            case "port":
                let port = try number()
                guard port <= 65535 else { throw ConfigurationError.invalid("\(file): port must be at most 65535") }
                http.port = UInt16(port)
            case "threads": http.threads = try number()
            case "maxRequestLineBytes": http.maxRequestLineBytes = try number()
            case "maxHeaderFieldBytes": http.maxHeaderFieldBytes = try number()
            case "maxHeaderListBytes": http.maxHeaderListBytes = try number()
            case "maxHeaderCount": http.maxHeaderCount = try number()
            case "maxBodyBytes": http.maxBodyBytes = try number()
            case "idleTimeoutMilliseconds": http.idleTimeoutMilliseconds = try number()
            case "readTimeoutMilliseconds": http.readTimeoutMilliseconds = try number()
            case "handlerTimeoutMilliseconds": http.handlerTimeoutMilliseconds = try number()
            case "maxConnectionsPerThread": http.maxConnectionsPerThread = try number()
            case "maxPendingOutputBytes": http.maxPendingOutputBytes = try number()
            case "maxPipelinedBytes": http.maxPipelinedBytes = try number()
            case "restore":
                let text = try text()
                guard let behaviour = RestoreBehaviour(rawValue: text) else {
                    throw ConfigurationError.invalid("\(file): restore must be transfer, keep or transferIfInactive, not \"\(text)\"")
                }
                restore = behaviour
            case "maxCommitBatch": maxCommitBatch = try number()
            case "polling":
                guard let flag = value.bool else { throw ConfigurationError.invalid("\(file): polling must be true or false") }
                pollingEnabled = flag
            case "pollingIntervalSeconds": pollingIntervalSeconds = try number()
            case "pollingWindowSeconds": pollingWindowSeconds = try number()
            case "verifyReceiptProductionURL": verifyReceiptProductionURL = try text()
            case "verifyReceiptSandboxURL": verifyReceiptSandboxURL = try text()
            case "verifyReceiptAttempts": verifyReceiptAttempts = try number()
            case "verifyReceiptBackoffMilliseconds": verifyReceiptBackoffMilliseconds = try number()
            default: throw ConfigurationError.invalid("\(file): unknown setting \"\(name)\" (see 'masthead serve --help')")
            }
        }
    }

    /// A window such as `3d`, `12h`, `30m` or `45s`, in milliseconds; nil when malformed.
    public static func milliseconds(fromDuration text: String) -> Int64? {
        guard let unit = text.last, let value = Int64(text.dropLast()), value >= 0, value < 100_000 else { return nil }
        switch unit {
        case "d": return value * 86_400_000
        case "h": return value * 3_600_000
        case "m": return value * 60_000
        case "s": return value * 1000
        default: return nil
        }
    }

    /// Reads the secrets from environment variables.
    public mutating func applyEnvironment(_ environment: [String: String]) {
        apiToken = environment["MASTHEAD_API_TOKEN"] ?? apiToken
        adminToken = environment["MASTHEAD_ADMIN_TOKEN"] ?? adminToken
        sharedSecret = environment["MASTHEAD_APP_STORE_SHARED_SECRET"] ?? sharedSecret
    }

    /// Checks the settings make a service that can start.
    /// - Parameter callerTokens: whether the API and admin tokens are needed (`masthead refresh`
    ///   answers no HTTP caller and needs only the shared secret).
    public func validate(callerTokens: Bool = true) throws(ConfigurationError) {
        if callerTokens && apiToken.isEmpty { throw ConfigurationError.invalid("MASTHEAD_API_TOKEN is not set: callers could not be authenticated") }
        if callerTokens && adminToken.isEmpty { throw ConfigurationError.invalid("MASTHEAD_ADMIN_TOKEN is not set: catalog changes could not be authenticated") }
        if sharedSecret.isEmpty {
            throw ConfigurationError.invalid("MASTHEAD_APP_STORE_SHARED_SECRET is not set: notifications could not be authenticated")
        }
        if http.threads < 1 || http.threads > 64 { throw ConfigurationError.invalid("threads must be from 1 to 64") }
        if maxCommitBatch < 1 { throw ConfigurationError.invalid("maxCommitBatch must be at least 1") }
        if pollingEnabled && pollingIntervalSeconds < 1 { throw ConfigurationError.invalid("pollingIntervalSeconds must be at least 1") }
        if verifyReceiptAttempts < 1 { throw ConfigurationError.invalid("verifyReceiptAttempts must be at least 1") }
        for (name, url) in [("verifyReceiptProductionURL", verifyReceiptProductionURL), ("verifyReceiptSandboxURL", verifyReceiptSandboxURL)]
        where !(url.hasPrefix("https://") || url.hasPrefix("http://")) {
            throw ConfigurationError.invalid("\(name) must be an http(s) URL, not \"\(url)\"")
        }
    }
}

/// A configuration that cannot start the service.
public enum ConfigurationError: Error, Hashable, Sendable, CustomStringConvertible {
    case invalid(String)

    public var description: String {
        switch self {
        case .invalid(let message): "invalid configuration: \(message)"
        }
    }
}
