public import MastheadAppStore

/// The App Store Server API settings and credentials polling uses.
extension ServiceConfiguration {
    /// The App Store Server API client's default settings, which are the service's.
    static let appStoreServerAPIDefaults = AppStoreServerAPIClient.Configuration()

    /// Whether any of the App Store Server API's credentials is given.
    var hasAppStoreServerAPICredentials: Bool {
        !(appStoreKeyId.isEmpty && appStoreIssuerId.isEmpty && appStorePrivateKeyFile.isEmpty && appStorePrivateKey.isEmpty)
    }

    /// The App Store Server API key, read from `MASTHEAD_APP_STORE_PRIVATE_KEY_FILE` or
    /// `MASTHEAD_APP_STORE_PRIVATE_KEY`; nil when no credential is given (polling then skips
    /// subscriptions with signed data).
    /// - Throws: ``ConfigurationError`` naming the variable that is missing, or the file that
    ///   cannot be read; never the key's bytes.
    public func appStoreCredentials() throws(ConfigurationError) -> AppStoreCredentials? {
        guard hasAppStoreServerAPICredentials else { return nil }
        let missing = "is not set, but other App Store Server API credentials are"
        if appStoreKeyId.isEmpty { throw .invalid("MASTHEAD_APP_STORE_KEY_ID \(missing)") }
        if appStoreIssuerId.isEmpty { throw .invalid("MASTHEAD_APP_STORE_ISSUER_ID \(missing)") }
        do {
            switch (appStorePrivateKeyFile.isEmpty, appStorePrivateKey.isEmpty) {
            case (false, true): return try AppStoreCredentials(keyId: appStoreKeyId, issuerId: appStoreIssuerId, privateKeyFile: appStorePrivateKeyFile)
            case (true, false):
                return try AppStoreCredentials(
                    keyId: appStoreKeyId, issuerId: appStoreIssuerId, privateKeyPEM: appStorePrivateKey, keySource: "MASTHEAD_APP_STORE_PRIVATE_KEY")
            case (false, false): throw ConfigurationError.invalid("give MASTHEAD_APP_STORE_PRIVATE_KEY_FILE or MASTHEAD_APP_STORE_PRIVATE_KEY, not both")
            case (true, true): throw ConfigurationError.invalid("MASTHEAD_APP_STORE_PRIVATE_KEY_FILE (or MASTHEAD_APP_STORE_PRIVATE_KEY) \(missing)")
            }
        } catch let error as ConfigurationError {
            throw error
        } catch {
            throw .invalid("\(error)")
        }
    }

    /// The client's settings: base URLs, retries and waits.
    public var appStoreServerAPIConfiguration: AppStoreServerAPIClient.Configuration {
        var configuration = AppStoreServerAPIClient.Configuration()
        configuration.productionURL = appStoreServerAPIProductionURL
        configuration.sandboxURL = appStoreServerAPISandboxURL
        configuration.allowsHTTP = appStoreServerAPIAllowHTTP
        configuration.attempts = appStoreServerAPIAttempts
        configuration.backoffMilliseconds = appStoreServerAPIBackoffMilliseconds
        configuration.maxWaitMilliseconds = appStoreServerAPIMaxWaitMilliseconds
        return configuration
    }

    /// The HTTP client of requests to Apple: each one bounded by `appStoreRequestTimeoutSeconds`.
    public var appStoreTransport: HTTPSTransport { HTTPSTransport(timeoutSeconds: Double(appStoreRequestTimeoutSeconds)) }

    /// Checks the App Store Server API's base URLs and, when given, the credentials (the ranges of
    /// its timeout and retry settings are their rows', checked with every row's).
    func validateAppStoreServerAPI() throws(ConfigurationError) {
        for (name, url) in [("appStoreServerAPIProductionURL", appStoreServerAPIProductionURL), ("appStoreServerAPISandboxURL", appStoreServerAPISandboxURL)] {
            let lowered = url.lowercased()
            guard lowered.hasPrefix("https://") || (appStoreServerAPIAllowHTTP && lowered.hasPrefix("http://")) else {
                throw .invalid(AppStoreError.invalidBaseURL(setting: name, url: url).description)
            }
        }
        if try appStoreCredentials() != nil && appStoreBundleId.isEmpty {
            throw .invalid("appStoreBundleId is not set: the App Store Server API's tokens and answers need the app's bundle id")
        }
    }

    /// Seconds of one request to Apple: 1 to 600.
    static let requestTimeoutRange = 1...600
    /// Tries of one request: at least one, at most 20.
    static let attemptsRange = 1...20
    /// A first retry's wait: up to 10 minutes.
    static let backoffRange = 0...600_000
    /// The longest wait before a retry: up to an hour.
    static let maxWaitRange = 0...3_600_000
    /// A count that must be at least one (a batch, a cache).
    static let atLeastOne = 1...Int(Int32.max)
}
