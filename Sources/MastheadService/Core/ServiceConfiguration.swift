public import MastheadHTTP
public import MastheadStorage
import MastheadAppStore
import MastheadJSON

/// Everything `masthead serve` needs, with defaults; secrets come from the environment.
public struct ServiceConfiguration: Sendable {
    public var catalogPath = "Catalog/the-monthly"
    /// The `database` setting: a SQLite file's path, or a `postgresql://` URL (see ``database``).
    public var databasePath = "masthead.sqlite"
    /// Host, port and every HTTP limit.
    public var http = HTTPServerConfiguration()
    /// `Authorization: Bearer` token for callers (`MASTHEAD_API_TOKEN`).
    public var apiToken = ""
    /// Token for the admin routes (`MASTHEAD_ADMIN_TOKEN`), accepted wherever the API token is too.
    public var adminToken = ""
    /// The App Store shared secret: notification password and verifyReceipt password (`MASTHEAD_APP_STORE_SHARED_SECRET`).
    public var sharedSecret = ""
    /// What happens when a receipt names a subscription linked to another user.
    public var restore = RestoreBehaviour.transfer
    /// How long a restore may ask Apple and queue its write, from its arrival; past it the restore
    /// answers 504 and stores nothing. At most the handler timeout less
    /// ``restoreCommitMarginMilliseconds``, so that a restore answered 503 `handler_timeout` is
    /// never stored afterwards.
    public var restoreTimeoutMilliseconds = 20_000
    /// The least time between `restoreTimeoutMilliseconds` and the handler timeout: a restore's
    /// write, begun by its deadline, must have committed within it.
    public static let restoreCommitMarginMilliseconds = 5000
    /// Most writes committed in one transaction.
    public var maxCommitBatch = 1000
    /// Most users whose answers the download check keeps in memory; when the cache is full, a new
    /// user takes the place of one not asked for lately.
    public var maxCachedUsers = 200_000
    /// Heap bytes the download check's cached bodies (one per user and issue asked) may take
    /// together; past it, bodies not asked for lately are dropped (an answer without its body is
    /// written from the user's cached answer). 0: no body is kept. With ``maxCachedUsers`` this
    /// bounds the cache's memory.
    public var maxCachedCheckBytes = 64 << 20
    /// Poll Apple for subscriptions about to expire, every `pollingIntervalSeconds`.
    public var pollingEnabled = false
    public var pollingIntervalSeconds = 3600
    /// How far ahead polling looks for expiries, in seconds (3 days by default).
    public var pollingWindowSeconds = 3 * 86_400
    /// Seconds between two sweeps for entitlement changes that come with time alone (a lapse at an
    /// expiry, a grant's end), when `webhookURLs` is set: the most such an event waits.
    public var webhookSweepIntervalSeconds = 60
    public var verifyReceiptProductionURL = "https://buy.itunes.apple.com/verifyReceipt"
    public var verifyReceiptSandboxURL = "https://sandbox.itunes.apple.com/verifyReceipt"
    /// Whether the verifyReceipt URLs may be plain `http://`: for tests against a local fake only.
    public var verifyReceiptAllowHTTP = false
    /// Attempts per receipt when Apple answers a retryable status (21005, 21100–21199) or the network fails.
    public var verifyReceiptAttempts = 4
    /// The first retry waits this long; each next one twice as long.
    public var verifyReceiptBackoffMilliseconds = 500
    /// The bundle id signed data (version 2 notifications, signed transactions) must carry; while
    /// it is empty, signed data is refused.
    public var appStoreBundleId = ""
    /// The App Apple ID production notifications must carry; 0: not checked.
    public var appStoreAppAppleId = 0
    /// Files (DER or PEM) of the root certificates signed data must chain to; none: Apple Root CA - G3.
    public var appStoreRootCertificates: [String] = []
    /// The environments whose signed data is taken in (sandbox data never grants in production, R14).
    public var appStoreEnvironments = ["Production", "Sandbox"]
    /// The App Store Server API's production and sandbox base URLs, which polling asks about
    /// subscriptions with signed data. These and the next four settings default to those of
    /// `AppStoreServerAPIClient.Configuration`.
    public var appStoreServerAPIProductionURL = Self.appStoreServerAPIDefaults.productionURL
    public var appStoreServerAPISandboxURL = Self.appStoreServerAPIDefaults.sandboxURL
    /// Whether the base URLs may be plain `http://`: for tests against a local fake only.
    public var appStoreServerAPIAllowHTTP = Self.appStoreServerAPIDefaults.allowsHTTP
    /// Tries of one App Store Server API request on HTTP 429, 5xx and network failures.
    public var appStoreServerAPIAttempts = Self.appStoreServerAPIDefaults.attempts
    /// The first retry's wait; each next one twice as long.
    public var appStoreServerAPIBackoffMilliseconds = Self.appStoreServerAPIDefaults.backoffMilliseconds
    /// The longest wait before a retry; a `Retry-After` asking more gives up.
    public var appStoreServerAPIMaxWaitMilliseconds = Self.appStoreServerAPIDefaults.maxWaitMilliseconds
    /// Seconds one request to Apple (verifyReceipt or the App Store Server API) may take in all:
    /// connecting, the first byte and the whole answer.
    public var appStoreRequestTimeoutSeconds = 15
    /// Seconds between two looks for Set App Account Token calls due (when the App Store Server
    /// API is configured).
    public var appAccountTokenUpdateIntervalSeconds = 10
    /// Tries of one Set App Account Token call before it is given up.
    public var appAccountTokenUpdateAttempts = 8
    /// The In-App Purchase key's id (`MASTHEAD_APP_STORE_KEY_ID`).
    public var appStoreKeyId = ""
    /// The team's issuer id (`MASTHEAD_APP_STORE_ISSUER_ID`).
    public var appStoreIssuerId = ""
    /// The path of the key's `.p8` file (`MASTHEAD_APP_STORE_PRIVATE_KEY_FILE`).
    public var appStorePrivateKeyFile = ""
    /// The key's PEM text (`MASTHEAD_APP_STORE_PRIVATE_KEY`), when no file is given.
    public var appStorePrivateKey = ""
    /// Where `masthead serve` logs each request (``AccessLog``): a file's path, `-` for standard
    /// error; empty: no access log.
    public var accessLog = ""
    /// Whether the download check records the issues it serves and `CONSUMPTION_REQUEST`
    /// notifications are answered with Send Consumption Information (readers who consented only).
    public var consumptionInformation = false
    /// The outcome asked for in every consumption information sent; `none`: not said.
    public var refundPreference = RefundPreferenceSetting.none
    /// Whether the consumption information sent says a sample of the content was provided before the purchase.
    public var sampleContentProvided = false
    /// Where webhook events are POSTed when a reader's entitlements change; none: no event is
    /// computed or stored.
    public var webhookURLs: [String] = []
    /// Where each notification received from Apple is forwarded as received, after it is stored.
    public var forwardNotificationsTo: [String] = []
    /// The key webhook deliveries are signed with, HMAC-SHA256 (`MASTHEAD_WEBHOOK_SECRET`).
    public var webhookSecret = ""
    /// Threads delivering the outbox's messages (webhooks and forwards).
    public var webhookDeliveryThreads = 2
    /// Seconds one delivery may take in all (connect, first byte, whole answer).
    public var webhookTimeoutSeconds = 10
    /// Days delivered and parked messages are kept in the outbox before they are deleted.
    public var webhookRetentionDays = 7
    /// The Android app's package name whose Google Play purchases are taken in; empty: Google
    /// Play is off (its notifications answer 404, its purchases are not asked for).
    public var googlePlayPackageName = ""
    /// The `aud` Pub/Sub push tokens must carry: the audience set on the push subscription.
    public var googlePlayPubSubAudience = ""
    /// The `email` Pub/Sub push tokens must carry: the push subscription's service account.
    public var googlePlayPubSubServiceAccount = ""
    /// A JWKS file of Google's signing keys; empty: fetched from ``googlePlayJWKSURL``.
    public var googlePlayJWKSFile = ""
    /// Where Google's signing keys are fetched (when ``googlePlayJWKSFile`` is empty, and on an unknown key id).
    public var googlePlayJWKSURL = "https://www.googleapis.com/oauth2/v3/certs"
    /// The Play Developer API's base URL; Google's paths are appended to it.
    public var googlePlayAPIURL = "https://androidpublisher.googleapis.com"
    /// The OAuth 2.0 token endpoint of the service account's grant (the key file's `token_uri` is not used).
    public var googlePlayTokenURL = "https://oauth2.googleapis.com/token"
    /// Whether the Google URLs may be plain `http://`: for tests against a local fake only.
    public var googlePlayAllowHTTP = false
    /// Tries of one request to Google on HTTP 429, 5xx and network failures.
    public var googlePlayAttempts = 4
    /// The first retry's wait; each next one twice as long (a `Retry-After` is honoured, at most 30 s).
    public var googlePlayBackoffMilliseconds = 500
    /// Seconds between two looks for Google Play purchases to acknowledge again.
    public var googlePlayAcknowledgementIntervalSeconds = 60
    /// The path of the service account's JSON key file (`MASTHEAD_GOOGLE_PLAY_SERVICE_ACCOUNT_FILE`).
    public var googlePlayServiceAccountFile = ""

    /// The defaults.
    public init() {}

    /// Where the store lives, as ``databasePath`` names it: a PostgreSQL database for a
    /// `postgresql://` or `postgres://` URL, else a SQLite file.
    public var database: StoreLocation { StoreLocation(databasePath) }

    /// The settings table: every setting a `--config` file or a `masthead serve` flag may give,
    /// in the order `masthead serve --help` lists them (the service guide, Operating.md, lists the same keys).
    public static let settings: [ServiceSetting] = [
        .text("catalog", "DIR", \.catalogPath, "Catalog folder holding catalog.json."),
        .text("database", "FILE|URL", \.databasePath, "SQLite database (created if needed), or postgresql://user@host:port/db."),
        .text("host", "HOST", \.http.host, "Address to listen on."),
        .port("port", \.http.port, "Port; 0 picks a free one."),
        .number("threads", \.http.threads, "Event-loop threads.", required: 1...64),
        .number("maxRequestLineBytes", \.http.maxRequestLineBytes, "Longest request line; longer: 414."),
        .number("maxHeaderFieldBytes", \.http.maxHeaderFieldBytes, "Longest header field; longer: 431."),
        .number("maxHeaderListBytes", \.http.maxHeaderListBytes, "Largest header section; larger: 431."),
        .number("maxHeaderCount", \.http.maxHeaderCount, "Most header fields; more: 431."),
        .number("maxBodyBytes", \.http.maxBodyBytes, "Largest request body; larger: 413."),
        .number(
            "maxBufferedBodyBytes", \.http.maxBufferedBodyBytes,
            "Request body bytes received and held at once, all connections together; a body whose bytes pass it: 503 with Retry-After, the rest unread."),
        .number("idleTimeoutMilliseconds", \.http.idleTimeoutMilliseconds, "Idle keep-alive connections are closed after this."),
        .number("readTimeoutMilliseconds", \.http.readTimeoutMilliseconds, "A request not complete in time: 408."),
        .number("handlerTimeoutMilliseconds", \.http.handlerTimeoutMilliseconds, "An answer not ready in time: 503."),
        .number("maxConnectionsPerThread", \.http.maxConnectionsPerThread, "More connections per event loop: 503."),
        .number("maxPendingOutputBytes", \.http.maxPendingOutputBytes, "Unread answers past it: the connection is not read."),
        .number("maxPipelinedBytes", \.http.maxPipelinedBytes, "Requests read ahead while one is answered."),
        .choice("restore", "MODE", \.restore, "A receipt with another user's subscription"),
        .number(
            "restoreTimeoutMilliseconds", \.restoreTimeoutMilliseconds,
            "A restore not done in time: 504, nothing stored; at most handlerTimeoutMilliseconds - 5000.", range: 1...Int(Int32.max)),
        .number("maxCommitBatch", \.maxCommitBatch, "Most writes committed together.", required: ServiceConfiguration.atLeastOne),
        .number("maxCachedUsers", \.maxCachedUsers, "Most users kept in the answer cache (when full, a new user replaces one not asked for lately).", required: ServiceConfiguration.atLeastOne),
        .number(
            "maxCachedCheckBytes", \.maxCachedCheckBytes,
            "Heap bytes the cached check bodies take together; past it, bodies not asked for lately make way (0: none kept)."),
        .toggle("polling", \.pollingEnabled, "Poll Apple for subscriptions about to expire."),
        .number("pollingIntervalSeconds", \.pollingIntervalSeconds, "Seconds between polls."),
        .number("pollingWindowSeconds", \.pollingWindowSeconds, "How far ahead polling looks for expiries, in seconds."),
        .number(
            "webhookSweepIntervalSeconds", \.webhookSweepIntervalSeconds, "Seconds between sweeps for changes time makes (lapses, grants' ends).",
            range: 1...86_400),
        .text("verifyReceiptProductionURL", "URL", \.verifyReceiptProductionURL, "Apple's verifyReceipt for production receipts."),
        .text("verifyReceiptSandboxURL", "URL", \.verifyReceiptSandboxURL, "Apple's verifyReceipt for sandbox receipts."),
        .toggle("verifyReceiptAllowHTTP", \.verifyReceiptAllowHTTP, "Allow http:// verifyReceipt URLs (tests against a local fake only)."),
        .number(
            "verifyReceiptAttempts", \.verifyReceiptAttempts, "Tries on 21005, 21100-21199 and network errors.", required: ServiceConfiguration.attemptsRange),
        .number(
            "verifyReceiptBackoffMilliseconds", \.verifyReceiptBackoffMilliseconds, "The first retry's wait; doubled each retry.",
            required: ServiceConfiguration.backoffRange),
        .text("appStoreBundleId", "ID", \.appStoreBundleId, "Bundle id signed data must carry; empty: signed data is refused."),
        .number("appStoreAppAppleId", \.appStoreAppAppleId, "App Apple ID production notifications must carry; 0: not checked.", range: 0...Int.max),
        .list(
            "appStoreRootCertificates", "FILES", \.appStoreRootCertificates,
            "Root certificates (DER or PEM files) signed data must chain to; none: Apple Root CA - G3."),
        .list(
            "appStoreEnvironments", "NAMES", \.appStoreEnvironments, "Environments whose signed data is taken in.",
            words: ServiceConfiguration.appStoreEnvironmentNames),
        .text("appStoreServerAPIProductionURL", "URL", \.appStoreServerAPIProductionURL, "App Store Server API base URL for production."),
        .text("appStoreServerAPISandboxURL", "URL", \.appStoreServerAPISandboxURL, "App Store Server API base URL for the sandbox."),
        .toggle("appStoreServerAPIAllowHTTP", \.appStoreServerAPIAllowHTTP, "Allow http:// App Store Server API URLs (tests against a local fake only)."),
        .number(
            "appStoreServerAPIAttempts", \.appStoreServerAPIAttempts, "Tries of an App Store Server API request on 429, 5xx and network errors.",
            required: ServiceConfiguration.attemptsRange),
        .number(
            "appStoreServerAPIBackoffMilliseconds", \.appStoreServerAPIBackoffMilliseconds, "The first App Store Server API retry's wait; doubled each retry.",
            required: ServiceConfiguration.backoffRange),
        .number(
            "appStoreServerAPIMaxWaitMilliseconds", \.appStoreServerAPIMaxWaitMilliseconds,
            "Longest wait before an App Store Server API retry; a longer Retry-After gives up.", required: ServiceConfiguration.maxWaitRange),
        .number(
            "appStoreRequestTimeoutSeconds", \.appStoreRequestTimeoutSeconds,
            "Seconds one request to Apple may take in all (connect, first byte, whole answer).", range: ServiceConfiguration.requestTimeoutRange),
        .number(
            "appAccountTokenUpdateIntervalSeconds", \.appAccountTokenUpdateIntervalSeconds,
            "Seconds between looks for Set App Account Token calls due.", range: 1...86_400),
        .number(
            "appAccountTokenUpdateAttempts", \.appAccountTokenUpdateAttempts, "Tries of a Set App Account Token call before it is given up.",
            range: 1...100),
        .text("accessLog", "FILE|-", \.accessLog, "Access log: a JSON line per request to this file, or - for standard error; empty: none."),
        .toggle(
            "consumptionInformation", \.consumptionInformation,
            "Record the issues served and answer refund requests (CONSUMPTION_REQUEST) with consumption information, for readers who consented."),
        .choice("refundPreference", "PREFERENCE", \.refundPreference, "The refund outcome asked for in consumption information"),
        .toggle("sampleContentProvided", \.sampleContentProvided, "Consumption information says a sample of the content was provided before purchase."),
        .list("webhookURLs", "URLS", \.webhookURLs, "http(s) URLs webhook events are POSTed to, signed with MASTHEAD_WEBHOOK_SECRET; none: no events."),
        .list("forwardNotificationsTo", "URLS", \.forwardNotificationsTo, "http(s) URLs each notification from Apple is forwarded to, as received."),
        .number("webhookDeliveryThreads", \.webhookDeliveryThreads, "Threads delivering webhooks and forwarded notifications.", range: 1...16),
        .number("webhookTimeoutSeconds", \.webhookTimeoutSeconds, "Seconds one delivery may take in all (connect, first byte, whole answer).", range: 1...300),
        .number("webhookRetentionDays", \.webhookRetentionDays, "Days delivered and parked messages are kept in the outbox.", range: 1...365),
        .text("googlePlayPackageName", "NAME", \.googlePlayPackageName, "Android package whose Google Play purchases are taken in; empty: Google Play off."),
        .text("googlePlayPubSubAudience", "AUDIENCE", \.googlePlayPubSubAudience, "The aud Pub/Sub push tokens must carry (the push subscription's audience)."),
        .text(
            "googlePlayPubSubServiceAccount", "EMAIL", \.googlePlayPubSubServiceAccount,
            "The email Pub/Sub push tokens must carry (the push subscription's service account)."),
        .text("googlePlayJWKSFile", "FILE", \.googlePlayJWKSFile, "JWKS file of Google's signing keys; empty: fetched from googlePlayJWKSURL."),
        .text("googlePlayJWKSURL", "URL", \.googlePlayJWKSURL, "Where Google's signing keys are fetched (and refreshed on an unknown key id)."),
        .text("googlePlayAPIURL", "URL", \.googlePlayAPIURL, "Play Developer API base URL (Google's paths are appended)."),
        .text("googlePlayTokenURL", "URL", \.googlePlayTokenURL, "OAuth 2.0 token endpoint of the service account's grant."),
        .toggle("googlePlayAllowHTTP", \.googlePlayAllowHTTP, "Allow http:// Google URLs (tests against a local fake only)."),
        .number(
            "googlePlayAttempts", \.googlePlayAttempts, "Tries of a request to Google on 429, 5xx and network errors.",
            required: ServiceConfiguration.attemptsRange),
        .number(
            "googlePlayBackoffMilliseconds", \.googlePlayBackoffMilliseconds, "The first retry's wait on Google; doubled each retry.",
            required: ServiceConfiguration.backoffRange),
        .number(
            "googlePlayAcknowledgementIntervalSeconds", \.googlePlayAcknowledgementIntervalSeconds,
            "Seconds between looks for Google Play purchases to acknowledge again.", range: 1...86_400),
    ]

    /// The secrets, which come from the environment only: each variable and what it is for.
    public static let secrets: [(variable: String, help: String)] = [
        ("MASTHEAD_API_TOKEN", "Bearer token every endpoint but /health, /openapi.json, /console and notifications requires"),
        ("MASTHEAD_ADMIN_TOKEN", "Bearer token for the admin routes and the support console (/console); accepted wherever the API token is"),
        ("MASTHEAD_APP_STORE_SHARED_SECRET", "notification password and verifyReceipt password"),
        ("MASTHEAD_APP_STORE_KEY_ID", "App Store Server API: the In-App Purchase key's id"),
        ("MASTHEAD_APP_STORE_ISSUER_ID", "App Store Server API: the team's issuer id"),
        ("MASTHEAD_APP_STORE_PRIVATE_KEY_FILE", "App Store Server API: path of the key's .p8 file"),
        ("MASTHEAD_APP_STORE_PRIVATE_KEY", "App Store Server API: the key's PEM text (instead of a file)"),
        ("MASTHEAD_WEBHOOK_SECRET", "the key webhook deliveries are signed with (HMAC-SHA256); required when webhookURLs is set"),
        ("MASTHEAD_GOOGLE_PLAY_SERVICE_ACCOUNT_FILE", "Google Play: path of the service account's JSON key file; required when googlePlayPackageName is set"),
    ]

    /// The settings row with this key.
    public static func setting(_ key: String) -> ServiceSetting? { settings.first { $0.key == key } }

    /// Applies a JSON configuration file's settings; unknown keys and wrong types are errors,
    /// every one reported at once, and then no setting of the file is applied.
    public mutating func apply(configurationFile bytes: [UInt8], file: String) throws(ConfigurationError) {
        let root: JSONValue
        do { root = try JSONDocument(parsing: bytes).root } catch { throw ConfigurationError.invalid("\(file): \(error)") }
        guard root.kind == .object else { throw ConfigurationError.invalid("\(file): expected a JSON object of settings") }
        var applied = self
        var problems: [String] = []
        for (key, value) in root.members {
            guard let setting = Self.setting(key.string) else {
                problems.append("\(file): unknown setting \"\(key.string)\" (see 'masthead serve --help')")
                continue
            }
            do { try setting.apply(json: value, file: file, to: &applied) } catch { problems.append(error.message) }
        }
        if let problem = ConfigurationError(problems) { throw problem }
        self = applied
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
        appStoreKeyId = environment["MASTHEAD_APP_STORE_KEY_ID"] ?? appStoreKeyId
        appStoreIssuerId = environment["MASTHEAD_APP_STORE_ISSUER_ID"] ?? appStoreIssuerId
        appStorePrivateKeyFile = environment["MASTHEAD_APP_STORE_PRIVATE_KEY_FILE"] ?? appStorePrivateKeyFile
        appStorePrivateKey = environment["MASTHEAD_APP_STORE_PRIVATE_KEY"] ?? appStorePrivateKey
        webhookSecret = environment["MASTHEAD_WEBHOOK_SECRET"] ?? webhookSecret
        googlePlayServiceAccountFile = environment["MASTHEAD_GOOGLE_PLAY_SERVICE_ACCOUNT_FILE"] ?? googlePlayServiceAccountFile
    }

    /// What a configuration is checked for: the service, or one of the commands that share its
    /// settings and need fewer secrets.
    public enum Use: Sendable, Hashable {
        /// `masthead serve`: the API and admin tokens and the shared secret.
        case serve
        /// `masthead refresh` polling: the shared secret, verifyReceipt's password (no HTTP caller).
        case refresh
        /// `masthead refresh --notifications-since` and `masthead migrate`: the App Store Server
        /// API only, no shared secret (its key is checked where it is needed).
        case appStoreServerAPI
    }

    /// Checks the settings make a service (or command) that can start, and reports every problem
    /// at once: each missing secret and each invalid setting, one per line.
    public func validate(for use: Use = .serve) throws(ConfigurationError) {
        var problems: [String] = []
        if use == .serve && apiToken.isEmpty { problems.append("MASTHEAD_API_TOKEN is not set: callers could not be authenticated") }
        if use == .serve && adminToken.isEmpty { problems.append("MASTHEAD_ADMIN_TOKEN is not set: catalog changes could not be authenticated") }
        if sharedSecret.isEmpty {
            switch use {
            case .serve: problems.append("MASTHEAD_APP_STORE_SHARED_SECRET is not set: notifications could not be authenticated")
            case .refresh: problems.append("MASTHEAD_APP_STORE_SHARED_SECRET is not set: it is the password verifyReceipt needs to re-verify receipts")
            case .appStoreServerAPI: break
            }
        }
        func collect(_ check: () throws(ConfigurationError) -> Void) {
            do throws(ConfigurationError) { try check() } catch { problems.append(error.message) }
        }
        collect { () throws(ConfigurationError) in try checkSecretsDiffer(callerTokens: use == .serve) }
        // The ranges are the settings rows' own, so one built in code is held to them too.
        problems += Self.settings.compactMap { $0.rangeProblem(in: self) }
        if http.maxBufferedBodyBytes < http.maxBodyBytes {
            problems.append("maxBufferedBodyBytes (\(http.maxBufferedBodyBytes)) must be at least maxBodyBytes (\(http.maxBodyBytes))")
        }
        if pollingEnabled && pollingIntervalSeconds < 1 { problems.append("pollingIntervalSeconds must be at least 1") }
        collect { () throws(ConfigurationError) in _ = try rootCertificates() }
        collect { () throws(ConfigurationError) in try validateAppStoreServerAPI() }
        for (name, url) in [("verifyReceiptProductionURL", verifyReceiptProductionURL), ("verifyReceiptSandboxURL", verifyReceiptSandboxURL)]
        where !(url.lowercased().hasPrefix("https://") || (verifyReceiptAllowHTTP && url.lowercased().hasPrefix("http://"))) {
            problems.append("\(name) must be an https URL (http only when verifyReceiptAllowHTTP is set, for tests), not \"\(url)\"")
        }
        if restoreTimeoutMilliseconds > http.handlerTimeoutMilliseconds - Self.restoreCommitMarginMilliseconds {
            problems.append(
                "restoreTimeoutMilliseconds (\(restoreTimeoutMilliseconds)) must be at most handlerTimeoutMilliseconds (\(http.handlerTimeoutMilliseconds)) "
                    + "- \(Self.restoreCommitMarginMilliseconds): a restore's write must have committed before the handler timeout, "
                    + "so that a restore answered 503 handler_timeout is never stored afterwards")
        }
        if appStoreEnvironments.isEmpty { problems.append("appStoreEnvironments must name at least one environment") }
        if use == .serve { problems += webhookProblems() }
        problems += googlePlayProblems(for: use)
        if let problem = ConfigurationError(problems) { throw problem }
    }
}

extension ServiceConfiguration {
    /// Refuses two of the secrets with the same bytes: the admin token would then be the API
    /// token, or a caller's token the password of notifications. The message names them, never their
    /// values. Secrets not set are reported as missing, not as equal.
    func checkSecretsDiffer(callerTokens: Bool) throws(ConfigurationError) {
        var secrets = [("MASTHEAD_APP_STORE_SHARED_SECRET", sharedSecret)]
        if callerTokens { secrets = [("MASTHEAD_API_TOKEN", apiToken), ("MASTHEAD_ADMIN_TOKEN", adminToken)] + secrets }
        for (index, first) in secrets.enumerated() {
            for second in secrets[(index + 1)...] where !first.1.isEmpty && first.1.utf8.elementsEqual(second.1.utf8) {
                throw ConfigurationError.invalid("\(first.0) and \(second.0) are the same: each secret must be different")
            }
        }
    }
}

/// A configuration that cannot start the service.
public enum ConfigurationError: Error, Hashable, Sendable, CustomStringConvertible {
    case invalid(String)

    /// Every problem found, one per line after the first when there are several; nil for none.
    init?(_ problems: [String]) {
        switch problems.count {
        case 0: return nil
        case 1: self = .invalid(problems[0])
        default: self = .invalid("\(problems.count) problems:\n  " + problems.joined(separator: "\n  "))
        }
    }

    /// What is wrong, without the "invalid configuration" prefix.
    public var message: String {
        switch self {
        case .invalid(let message): message
        }
    }

    public var description: String { "invalid configuration: \(message)" }
}
