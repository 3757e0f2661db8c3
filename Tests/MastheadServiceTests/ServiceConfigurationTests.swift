import Foundation
import MastheadCrypto
import MastheadFormats
import MastheadAppStore
import MastheadHTTP
import MastheadService
import MastheadTestSupport
import Testing

/// The settings table and the configuration file it reads.
struct ServiceConfigurationTests {
    @Test func outputAndPipeliningLimits_areSettings() throws {
        var configuration = ServiceConfiguration()
        try configuration.apply(configurationFile: Array(#"{"maxPendingOutputBytes": 4096, "maxPipelinedBytes": 512}"#.utf8), file: "limits.json")
        #expect(configuration.http.maxPendingOutputBytes == 4096)
        #expect(configuration.http.maxPipelinedBytes == 512)
        #expect(ServiceConfiguration.setting("maxPendingOutputBytes") != nil)
        #expect(ServiceConfiguration.setting("maxPipelinedBytes") != nil)
    }

    /// The budget for cached check bodies: a flag or the file sets it (0 included: no body kept),
    /// a value that is not a whole number from 0 to 2147483647 is refused naming the setting, and
    /// the help says what it does.
    @Test func checkBodyBudget_isASetting_checkedByName() throws {
        let setting = try #require(ServiceConfiguration.setting("maxCachedCheckBytes"))
        #expect(setting.defaultText == "67108864")
        #expect(setting.help.contains("check bodies"))
        var configuration = ServiceConfiguration()
        try setting.apply(flag: "0", to: &configuration)
        #expect(configuration.maxCachedCheckBytes == 0)
        try configuration.apply(configurationFile: Array(#"{"maxCachedCheckBytes": 1048576}"#.utf8), file: "cache.json")
        #expect(configuration.maxCachedCheckBytes == 1_048_576)
        for text in ["-1", "2147483648", "64MiB", ""] {
            #expect(throws: ConfigurationError.invalid("--maxCachedCheckBytes must be a whole number from 0 to 2147483647, not '\(text)'")) {
                try setting.apply(flag: text, to: &configuration)
            }
        }
        for json in ["-1", "2147483648", "\"64MiB\"", "1.5"] {
            #expect(throws: ConfigurationError.invalid("cache.json: maxCachedCheckBytes must be a whole number from 0 to 2147483647")) {
                try configuration.apply(configurationFile: Array(#"{"maxCachedCheckBytes": \#(json)}"#.utf8), file: "cache.json")
            }
        }
        #expect(configuration.maxCachedCheckBytes == 1_048_576)
    }

    /// A value of the setting's kind other than its default.
    static func otherValue(_ setting: ServiceSetting) -> (json: String, text: String?) {
        let current = setting.defaultText
        switch setting.kind {
        case .toggle: return (current == "true" ? "false" : "true", nil)
        case .text: return ("\"\(current)-other\"", current + "-other")
        case .number(let range):
            let number = (Int(current) ?? 0) == range.upperBound ? range.lowerBound : (Int(current) ?? 0) + 1
            return (String(number), String(number))
        case .choice(let words):
            let word = words.first { $0 != current } ?? current
            return ("\"\(word)\"", word)
        case .list(let words):
            // One word, or the test chain's root (a file that exists, as the service checks).
            let item = words?.first { $0 != current } ?? TestChain.directory.appendingPathComponent("root.der").path
            return ("[\"\(item)\"]", item)
        }
    }

    @Test func everySetting_isReadFromTheConfigurationFile_intoItsField() throws {
        let values = ServiceConfiguration.settings.map { ($0, Self.otherValue($0).json) }
        let document = "{" + values.map { "\"\($0.0.key)\": \($0.1)" }.joined(separator: ", ") + "}"
        var configuration = ServiceConfiguration()
        try configuration.apply(configurationFile: Array(document.utf8), file: "all.json")
        for (setting, json) in values {
            #expect(setting.json(in: configuration) == json, "\(setting.key)")
            #expect(setting.json(in: ServiceConfiguration()) != json, "\(setting.key)")
        }
    }

    @Test func configurationFile_wrongValues_areErrorsNamingFileAndKey() {
        let cases: [(String, String)] = [
            (#"{"port": 70000}"#, "ports.json: port must be a whole number from 0 to 65535"),
            (#"{"host": 1}"#, "ports.json: host must be a string"),
            (#"{"polling": "yes"}"#, "ports.json: polling must be true or false"),
            (#"{"restore": "steal"}"#, #"ports.json: restore must be transfer, keep or transferIfInactive, not "steal""#),
            (#"{"maxBodyBites": 1}"#, #"ports.json: unknown setting "maxBodyBites" (see 'masthead serve --help')"#),
        ]
        for (document, message) in cases {
            var configuration = ServiceConfiguration()
            #expect(throws: ConfigurationError.invalid(message)) {
                try configuration.apply(configurationFile: Array(document.utf8), file: "ports.json")
            }
        }
    }
}

/// The trust settings of signed data.
struct SignedDataSettingsTests {
    @Test func defaults_takeProductionAndSandbox_trustApplesRoot_andNoApp() throws {
        let configuration = ServiceConfiguration()
        #expect(configuration.appIdentity == nil)
        #expect(try configuration.rootCertificates() == [.appleRootCAG3])
        #expect(ServiceConfiguration.setting("appStoreEnvironments")?.text(in: configuration) == "Production,Sandbox")
        #expect(ServiceConfiguration.setting("appStoreRootCertificates")?.text(in: configuration) == "none")
    }

    @Test func configured_app_isTheAppIdentity() throws {
        var configuration = ServiceConfiguration()
        try configuration.apply(
            configurationFile: Array(#"{"appStoreBundleId": "com.example.magazine", "appStoreAppAppleId": 1234567890, "appStoreEnvironments": ["Production"]}"#.utf8),
            file: "app.json")
        #expect(configuration.appIdentity == AppIdentity(bundleId: "com.example.magazine", appAppleId: 1_234_567_890, environments: [.production]))
    }

    @Test func rootCertificates_areReadFromTheFiles_DERorPEM() throws {
        var configuration = ServiceConfiguration()
        let folder = TestChain.directory
        configuration.appStoreRootCertificates = [folder.appendingPathComponent("root.pem").path, folder.appendingPathComponent("other-root.der").path]
        #expect(try configuration.rootCertificates() == [try TestChain.root(), try TestChain.certificate("other-root.der")])
        configuration.sharedSecret = "secret"
        try configuration.validate(for: .refresh)
    }

    @Test(arguments: [
        (["/nonexistent/root.pem"], "appStoreRootCertificates: cannot read /nonexistent/root.pem"),
        ([TestChain.directory.appendingPathComponent("README.md").path], "is not a DER or PEM certificate"),
    ])
    func rootCertificates_unreadableOrNotCertificates_failValidation(paths: [String], message: String) {
        var configuration = ServiceConfiguration()
        configuration.sharedSecret = "secret"
        configuration.appStoreRootCertificates = paths
        do {
            try configuration.validate(for: .refresh)
            Issue.record("validated")
        } catch {
            #expect(error.message.contains(message), "\(error.message)")
        }
    }

    @Test func lists_asFlagsAndInFiles_areChecked() throws {
        var configuration = ServiceConfiguration()
        let environments = try #require(ServiceConfiguration.setting("appStoreEnvironments"))
        try environments.apply(flag: "Sandbox,Xcode", to: &configuration)
        #expect(configuration.appStoreEnvironments == ["Sandbox", "Xcode"])
        #expect(throws: ConfigurationError.invalid("--appStoreEnvironments must be a comma-separated list, each Production, Sandbox, Xcode or LocalTesting, not 'Prod' in 'Sandbox,Prod'")) {
            try environments.apply(flag: "Sandbox,Prod", to: &configuration)
        }
        #expect(throws: ConfigurationError.invalid("e.json: appStoreEnvironments must be an array of strings, each Production, Sandbox, Xcode or LocalTesting")) {
            try configuration.apply(configurationFile: Array(#"{"appStoreEnvironments": "Production"}"#.utf8), file: "e.json")
        }
        let roots = try #require(ServiceConfiguration.setting("appStoreRootCertificates"))
        try roots.apply(flag: "a.pem,b.der", to: &configuration)
        #expect(configuration.appStoreRootCertificates == ["a.pem", "b.der"])
        try roots.apply(flag: "none", to: &configuration)
        #expect(configuration.appStoreRootCertificates.isEmpty)
        configuration.sharedSecret = "secret"
        configuration.appStoreEnvironments = []
        #expect(throws: ConfigurationError.invalid("appStoreEnvironments must name at least one environment")) { try configuration.validate(for: .refresh) }
    }

    /// Retry settings out of range are refused by name before any doubling can overflow.
    @Test(arguments: [
        ("appStoreServerAPIAttempts", "0", "appStoreServerAPIAttempts must be from 1 to 20, not 0"),
        ("appStoreServerAPIAttempts", "1000000", "appStoreServerAPIAttempts must be from 1 to 20, not 1000000"),
        ("appStoreServerAPIBackoffMilliseconds", "2147483647", "appStoreServerAPIBackoffMilliseconds must be from 0 to 600000, not 2147483647"),
        ("appStoreServerAPIMaxWaitMilliseconds", "2147483647", "appStoreServerAPIMaxWaitMilliseconds must be from 0 to 3600000, not 2147483647"),
        ("verifyReceiptAttempts", "0", "verifyReceiptAttempts must be from 1 to 20, not 0"),
        ("verifyReceiptBackoffMilliseconds", "2147483647", "verifyReceiptBackoffMilliseconds must be from 0 to 600000, not 2147483647"),
    ])
    func retrySettings_outOfRange_failValidation_namingTheSetting(name: String, value: String, message: String) throws {
        var configuration = ServiceConfiguration()
        configuration.sharedSecret = "secret"
        let setting = try #require(ServiceConfiguration.setting(name))
        try setting.apply(flag: value, to: &configuration)
        #expect(throws: ConfigurationError.invalid(message)) { try configuration.validate(for: .refresh) }
    }
}

/// Every missing secret and invalid setting is reported at once, not one per run.
struct ConfigurationProblemsTests {
    @Test func validate_reportsEveryMissingSecret_andEveryInvalidSetting_atOnce() {
        var configuration = ServiceConfiguration()
        configuration.http.threads = 0
        configuration.maxCommitBatch = 0
        configuration.verifyReceiptAttempts = 0
        do {
            try configuration.validate()
            Issue.record("validated")
        } catch {
            for problem in [
                "MASTHEAD_API_TOKEN is not set", "MASTHEAD_ADMIN_TOKEN is not set", "MASTHEAD_APP_STORE_SHARED_SECRET is not set",
                "threads must be from 1 to 64", "maxCommitBatch must be at least 1", "verifyReceiptAttempts must be from 1 to 20, not 0",
            ] {
                #expect(error.message.contains(problem), "\(problem): \(error.message)")
            }
            #expect(error.message.hasPrefix("6 problems:\n"), "\(error.message)")
        }
    }

    /// The ranges a service starts with are held by the settings rows alone: validate() checks
    /// each row's range, for a value a flag gave as for one set in code (where even the range a
    /// flag would have refused is checked).
    @Test func validate_checksEverySettingsRowsRange_forFlagsAndCode() throws {
        let ranged = ServiceConfiguration.settings.filter { $0.required != nil }
        #expect(ranged.map(\.key).contains("threads"))
        for setting in ranged {
            guard let required = setting.required, case .number(let accepted) = setting.kind else {
                Issue.record("\(setting.key): a range on a setting that is not a number")
                continue
            }
            let outside = required.lowerBound > accepted.lowerBound ? required.lowerBound - 1 : required.upperBound + 1
            var configuration = ServiceConfiguration()
            try setting.apply(flag: String(outside), to: &configuration)
            do {
                try configuration.validate(for: .appStoreServerAPI)
                Issue.record("\(setting.key) \(outside) validated")
            } catch {
                #expect(error.message.contains("\(setting.key) must be "), "\(error.message)")
            }
        }
        var configuration = ServiceConfiguration()
        configuration.http.threads = 65
        configuration.restoreTimeoutMilliseconds = 0
        configuration.maxCachedUsers = 0
        let problems = [
            "threads must be from 1 to 64, not 65", "restoreTimeoutMilliseconds must be at least 1, not 0", "maxCachedUsers must be at least 1, not 0",
        ]
        #expect(throws: ConfigurationError.invalid("3 problems:\n  " + problems.joined(separator: "\n  "))) {
            try configuration.validate(for: .appStoreServerAPI)
        }
    }

    @Test func configurationFile_reportsEveryUnknownKeyAndWrongType_atOnce_andAppliesNothing() {
        var configuration = ServiceConfiguration()
        let file = #"{"port": 9, "maxBodyBites": 10, "threads": "four", "polling": 1}"#
        do {
            try configuration.apply(configurationFile: Array(file.utf8), file: "c.json")
            Issue.record("applied")
        } catch {
            #expect(error.message.contains(#"c.json: unknown setting "maxBodyBites""#), "\(error.message)")
            #expect(error.message.contains("c.json: threads must be a whole number"), "\(error.message)")
            #expect(error.message.contains("c.json: polling must be true or false"), "\(error.message)")
        }
        #expect(configuration.http.port == ServiceConfiguration().http.port)
    }

    /// `masthead refresh` and `masthead migrate` are told what they need the shared secret for, or
    /// that they do not.
    @Test func sharedSecret_missing_isExplainedForWhatTheCommandUsesItFor() {
        let configuration = ServiceConfiguration()
        #expect(throws: ConfigurationError.invalid("MASTHEAD_APP_STORE_SHARED_SECRET is not set: it is the password verifyReceipt needs to re-verify receipts")) {
            try configuration.validate(for: .refresh)
        }
        #expect(throws: Never.self) { try configuration.validate(for: .appStoreServerAPI) }
    }

    /// The API token, the admin token and the shared secret must be three different secrets
    /// (compared as bytes); the refusal names them, never their values.
    @Test func secretsThatAreTheSame_areRefused_byName() throws {
        var configuration = ServiceConfiguration()
        configuration.apiToken = "same-secret"
        configuration.adminToken = "same-secret"
        configuration.sharedSecret = "shared"
        #expect(throws: ConfigurationError.invalid("MASTHEAD_API_TOKEN and MASTHEAD_ADMIN_TOKEN are the same: each secret must be different")) {
            try configuration.validate()
        }
        configuration.adminToken = "admin"
        configuration.sharedSecret = "same-secret"
        #expect(throws: ConfigurationError.invalid("MASTHEAD_API_TOKEN and MASTHEAD_APP_STORE_SHARED_SECRET are the same: each secret must be different")) {
            try configuration.validate()
        }
        // Two spellings of one text are two secrets.
        configuration.apiToken = "caf\u{E9}"
        configuration.sharedSecret = "cafe\u{301}"
        try configuration.validate()
    }

    @Test func bodyBudget_smallerThanOneBody_isRefused() throws {
        var configuration = ServiceConfiguration()
        configuration.sharedSecret = "secret"
        configuration.http.maxBufferedBodyBytes = configuration.http.maxBodyBytes - 1
        #expect(throws: ConfigurationError.invalid("maxBufferedBodyBytes (2097151) must be at least maxBodyBytes (2097152)")) {
            try configuration.validate(for: .refresh)
        }
    }

    /// A restore timeout less than 5 s below the handler timeout is refused: a restore's write
    /// must have committed before the handler timeout, so that a restore answered 503
    /// `handler_timeout` is never stored afterwards.
    @Test(arguments: [
        (30_000, 30_000, false), (40_000, 30_000, false), (29_999, 30_000, false), (25_001, 30_000, false), (1000, 2000, false),
        (25_000, 30_000, true), (1000, 6000, true), (20_000, 30_000, true),
    ])
    func restoreTimeout_mustBeBelowTheHandlerTimeout(restore: Int, handler: Int, valid: Bool) throws {
        var configuration = ServiceConfiguration()
        configuration.sharedSecret = "secret"
        configuration.restoreTimeoutMilliseconds = restore
        configuration.http.handlerTimeoutMilliseconds = handler
        if valid {
            try configuration.validate(for: .refresh)
        } else {
            let message = "restoreTimeoutMilliseconds (\(restore)) must be at most handlerTimeoutMilliseconds (\(handler)) - 5000: "
                + "a restore's write must have committed before the handler timeout, so that a restore answered 503 handler_timeout is never stored afterwards"
            #expect(throws: ConfigurationError.invalid(message)) { try configuration.validate(for: .refresh) }
        }
    }

    /// The defaults keep the restore timeout below the handler timeout, and one request to Apple
    /// bounded.
    @Test func defaults_restoreTimeout_belowTheHandlerTimeout() throws {
        let configuration = ServiceConfiguration()
        #expect(configuration.restoreTimeoutMilliseconds <= configuration.http.handlerTimeoutMilliseconds - 5000)
        #expect(configuration.appStoreTransport.timeoutSeconds == Double(configuration.appStoreRequestTimeoutSeconds))
    }

    /// A request timeout out of range is refused by name.
    @Test(arguments: [0, 601])
    func requestTimeout_outOfRange_failsValidation(seconds: Int) throws {
        var configuration = ServiceConfiguration()
        configuration.sharedSecret = "secret"
        configuration.appStoreRequestTimeoutSeconds = seconds
        #expect(throws: ConfigurationError.invalid("appStoreRequestTimeoutSeconds must be from 1 to 600, not \(seconds)")) {
            try configuration.validate(for: .refresh)
        }
    }

    /// verifyReceipt URLs over plain http need `verifyReceiptAllowHTTP`, as the App Store Server
    /// API's need `appStoreServerAPIAllowHTTP`.
    @Test(arguments: ["verifyReceiptProductionURL", "verifyReceiptSandboxURL"])
    func verifyReceiptURL_overHTTP_needsTheOptIn(name: String) throws {
        var configuration = ServiceConfiguration()
        configuration.sharedSecret = "secret"
        let setting = try #require(ServiceConfiguration.setting(name))
        try setting.apply(flag: "http://127.0.0.1:9/verifyReceipt", to: &configuration)
        let message = "\(name) must be an https URL (http only when verifyReceiptAllowHTTP is set, for tests), not \"http://127.0.0.1:9/verifyReceipt\""
        #expect(throws: ConfigurationError.invalid(message)) { try configuration.validate(for: .refresh) }
        try #require(ServiceConfiguration.setting("verifyReceiptAllowHTTP")).apply(flag: nil, to: &configuration)
        try configuration.validate(for: .refresh)
    }
}
