import MastheadHTTP
@testable import MastheadService
import Testing

/// The webhook and forwarding settings: lists of absolute http(s) URLs, and the signing secret
/// webhooks need, which no message shows.
struct WebhookSettingsTests {
    static let secret = "whsec-7f3a9c-never-shown"

    /// A configuration a service starts with: the caller tokens and the shared secret set.
    static func startable() -> ServiceConfiguration {
        var configuration = ServiceConfiguration()
        configuration.applyEnvironment(["MASTHEAD_API_TOKEN": "api", "MASTHEAD_ADMIN_TOKEN": "admin", "MASTHEAD_APP_STORE_SHARED_SECRET": "shared"])
        return configuration
    }

    @Test func defaults_noWebhooks_noForwarding_andTheSecretIsNotNeeded() throws {
        let configuration = Self.startable()
        #expect(configuration.webhookURLs.isEmpty)
        #expect(configuration.forwardNotificationsTo.isEmpty)
        try configuration.validate()
    }

    @Test func webhookURLs_andForwarding_areReadFromFilesAndFlags() throws {
        var configuration = Self.startable()
        try configuration.apply(
            configurationFile: Array(#"{"webhookURLs": ["https://hooks.example/a", "http://10.0.0.2:8080/b?x=1"], "forwardNotificationsTo": []}"#.utf8),
            file: "hooks.json")
        #expect(configuration.webhookURLs == ["https://hooks.example/a", "http://10.0.0.2:8080/b?x=1"])
        try #require(ServiceConfiguration.setting("forwardNotificationsTo")).apply(flag: "https://staging.example/apple", to: &configuration)
        #expect(configuration.forwardNotificationsTo == ["https://staging.example/apple"])
        configuration.applyEnvironment(["MASTHEAD_WEBHOOK_SECRET": Self.secret])
        try configuration.validate()
    }

    @Test(arguments: ["ftp://hooks.example/a", "/hooks", "hooks.example/a", "https://user:password@hooks.example/a", "https:///a", "https://hooks.example:0/a"])
    func anEntryThatIsNotAnAbsoluteHTTPURL_isRefused_namingTheSettingAndTheEntry(url: String) {
        for key in ["webhookURLs", "forwardNotificationsTo"] {
            var configuration = Self.startable()
            configuration.applyEnvironment(["MASTHEAD_WEBHOOK_SECRET": Self.secret])
            let urls = ["https://hooks.example/ok", url]
            if key == "webhookURLs" { configuration.webhookURLs = urls } else { configuration.forwardNotificationsTo = urls }
            let message = "\(key)[1] must be an absolute http:// or https:// URL with a host (no user or password), not \"\(RedactedTarget.text(url))\""
            #expect(throws: ConfigurationError.invalid(message)) { try configuration.validate() }
        }
    }

    @Test func aRefusedEntry_isShownWithoutItsUserPasswordOrQuery() {
        var configuration = Self.startable()
        configuration.applyEnvironment(["MASTHEAD_WEBHOOK_SECRET": Self.secret])
        configuration.webhookURLs = ["https://ana:s3cret-pw@hooks.example/a?token=t0k3n"]
        let message = #"webhookURLs[0] must be an absolute http:// or https:// URL with a host (no user or password), not "https://hooks.example/a?…""#
        #expect(throws: ConfigurationError.invalid(message)) { try configuration.validate() }
    }

    @Test(arguments: [
        ("https://hooks.example/path?token=abc", "https://hooks.example/path?…"),
        ("https://user:pw@hooks.example:8443/p", "https://hooks.example:8443/p"),
        ("http://a@b@hooks.example/p#frag", "http://hooks.example/p?…"),
        ("https://hooks.example/a@b", "https://hooks.example/a@b"),
        ("https://hooks.example/plain", "https://hooks.example/plain"),
    ])
    func aTarget_isRedacted_ofItsUserPasswordAndQuery(url: String, shown: String) {
        #expect(RedactedTarget.text(url) == shown)
    }

    @Test func webhookURLs_withoutTheSecret_isRefused_andNoMessageShowsTheSecret() throws {
        var configuration = Self.startable()
        configuration.webhookURLs = ["https://hooks.example/a"]
        #expect(throws: ConfigurationError.invalid("MASTHEAD_WEBHOOK_SECRET is not set: webhookURLs needs it to sign the events")) {
            try configuration.validate()
        }
        configuration.applyEnvironment(["MASTHEAD_WEBHOOK_SECRET": ""])
        #expect(throws: ConfigurationError.self) { try configuration.validate() }
        // Forwarding alone needs no secret.
        configuration.webhookURLs = []
        configuration.forwardNotificationsTo = ["https://staging.example/apple"]
        try configuration.validate()
        // Set, it is in no problem reported nor in any setting's value.
        configuration.applyEnvironment(["MASTHEAD_WEBHOOK_SECRET": Self.secret])
        configuration.webhookURLs = ["ftp://hooks.example/a"]
        configuration.http.threads = 0
        do {
            try configuration.validate()
            Issue.record("validated")
        } catch {
            #expect(error.message.contains("webhookURLs[0]"))
            #expect(!"\(error)".contains(Self.secret))
        }
        for setting in ServiceConfiguration.settings { #expect(!setting.text(in: configuration).contains(Self.secret), "\(setting.key)") }
        #expect(ServiceConfiguration.secrets.contains { $0.variable == "MASTHEAD_WEBHOOK_SECRET" })
    }
}
