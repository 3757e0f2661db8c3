import Foundation
@testable import MastheadService
import Testing

/// The Google Play settings: off by default, each one named when it is missing or wrong, and the
/// service account's key file read from the environment, its content never in a message.
struct GooglePlaySettingsTests {
    /// A configuration a service starts with: the caller tokens and the shared secret set.
    static func startable() -> ServiceConfiguration {
        var configuration = ServiceConfiguration()
        configuration.applyEnvironment(["MASTHEAD_API_TOKEN": "api", "MASTHEAD_ADMIN_TOKEN": "admin", "MASTHEAD_APP_STORE_SHARED_SECRET": "shared"])
        return configuration
    }

    /// A key file with a recognisable secret in it.
    static func keyFile(_ content: String = #"{"private_key": "-----BEGIN PRIVATE KEY-----\nSECRET-KEY-BYTES\n-----END PRIVATE KEY-----\n"}"#) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("play-key-\(UUID().uuidString).json").path
        try Data(content.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Google Play configured for `serve`: package, audience, push account and key file.
    static func configured() throws -> ServiceConfiguration {
        var configuration = startable()
        configuration.googlePlayPackageName = "com.example.magazine"
        configuration.googlePlayPubSubAudience = "https://masthead.example/v1/notifications/google-play"
        configuration.googlePlayPubSubServiceAccount = "push@example.iam.gserviceaccount.com"
        configuration.applyEnvironment(["MASTHEAD_GOOGLE_PLAY_SERVICE_ACCOUNT_FILE": try keyFile()])
        return configuration
    }

    @Test func defaults_googlePlayOff_withGooglesURLs_andNothingNeeded() throws {
        let configuration = Self.startable()
        #expect(!configuration.googlePlayEnabled)
        #expect(configuration.googlePlayJWKSURL == "https://www.googleapis.com/oauth2/v3/certs")
        #expect(configuration.googlePlayAPIURL == "https://androidpublisher.googleapis.com")
        #expect(configuration.googlePlayTokenURL == "https://oauth2.googleapis.com/token")
        #expect(!configuration.googlePlayAllowHTTP)
        try configuration.validate()
    }

    @Test func settings_areReadFromFilesAndFlags_andTheKeyFileFromTheEnvironment() throws {
        var configuration = Self.startable()
        try configuration.apply(
            configurationFile: Array(
                #"{"googlePlayPackageName": "com.example.magazine", "googlePlayPubSubAudience": "aud-1", "googlePlayPubSubServiceAccount": "push@x.iam.gserviceaccount.com"}"#
                    .utf8), file: "play.json")
        try #require(ServiceConfiguration.setting("googlePlayAllowHTTP")).apply(flag: nil, to: &configuration)
        try #require(ServiceConfiguration.setting("googlePlayAPIURL")).apply(flag: "http://127.0.0.1:9/", to: &configuration)
        let path = try Self.keyFile()
        configuration.applyEnvironment(["MASTHEAD_GOOGLE_PLAY_SERVICE_ACCOUNT_FILE": path])
        #expect(configuration.googlePlayPackageName == "com.example.magazine")
        #expect(configuration.googlePlayPubSubAudience == "aud-1")
        #expect(configuration.googlePlayAllowHTTP)
        #expect(configuration.googlePlayServiceAccountFile == path)
        #expect(ServiceConfiguration.secrets.contains { $0.variable == "MASTHEAD_GOOGLE_PLAY_SERVICE_ACCOUNT_FILE" })
        try configuration.validate()
    }

    @Test func packageName_withoutTheKeyFile_isRefused_namingTheVariable() throws {
        var configuration = try Self.configured()
        configuration.googlePlayServiceAccountFile = ""
        #expect(
            throws: ConfigurationError.invalid(
                "MASTHEAD_GOOGLE_PLAY_SERVICE_ACCOUNT_FILE is not set: googlePlayPackageName needs the service account's key file to read purchases from Google")
        ) { try configuration.validate() }
    }

    @Test func aGooglePlaySetting_withoutThePackageName_isRefused_namingBoth() throws {
        var configuration = Self.startable()
        configuration.googlePlayPubSubAudience = "aud-1"
        configuration.applyEnvironment(["MASTHEAD_GOOGLE_PLAY_SERVICE_ACCOUNT_FILE": try Self.keyFile()])
        #expect(
            throws: ConfigurationError.invalid(
                "googlePlayPackageName is not set, but googlePlayPubSubAudience, MASTHEAD_GOOGLE_PLAY_SERVICE_ACCOUNT_FILE are: Google Play would be off")
        ) { try configuration.validate() }
    }

    @Test func serve_needsTheAudienceAndThePushAccount_refreshDoesNot() throws {
        var configuration = try Self.configured()
        configuration.googlePlayPubSubAudience = ""
        configuration.googlePlayPubSubServiceAccount = ""
        #expect(throws: ConfigurationError.self) { try configuration.validate() }
        do {
            try configuration.validate()
        } catch {
            #expect(error.message.contains("googlePlayPubSubAudience is not set"))
            #expect(error.message.contains("googlePlayPubSubServiceAccount is not set"))
        }
        try configuration.validate(for: .refresh)
    }

    @Test(arguments: ["googlePlayJWKSURL", "googlePlayAPIURL", "googlePlayTokenURL"])
    func aPlainHTTPURL_isRefused_unlessAllowed(key: String) throws {
        var configuration = try Self.configured()
        try #require(ServiceConfiguration.setting(key)).apply(flag: "http://127.0.0.1:9", to: &configuration)
        #expect(
            throws: ConfigurationError.invalid("\(key) must be an https URL (http only when googlePlayAllowHTTP is set, for tests), not \"http://127.0.0.1:9\"")
        ) { try configuration.validate() }
        configuration.googlePlayAllowHTTP = true
        try configuration.validate()
    }

    @Test func anUnreadableKeyFile_isNamed_andNoMessageShowsTheKey() throws {
        var configuration = try Self.configured()
        configuration.applyEnvironment(["MASTHEAD_GOOGLE_PLAY_SERVICE_ACCOUNT_FILE": "/nonexistent/key.json"])
        #expect(throws: ConfigurationError.invalid(#"MASTHEAD_GOOGLE_PLAY_SERVICE_ACCOUNT_FILE names "/nonexistent/key.json", which cannot be read"#)) {
            try configuration.validate()
        }
        configuration.applyEnvironment(["MASTHEAD_GOOGLE_PLAY_SERVICE_ACCOUNT_FILE": try Self.keyFile(#"{"client_email": 1, "private_key": "SECRET-KEY-BYTES"}"#)])
        do {
            try configuration.validate()
        } catch {
            #expect(!error.message.contains("SECRET-KEY-BYTES"))
        }
    }
}
