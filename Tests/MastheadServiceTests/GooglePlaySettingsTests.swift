import Foundation
@testable import MastheadService
import MastheadTestSupport
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

    /// The test service account's key file.
    static let validKeyFile = GooglePlayTestKeys.directory.appendingPathComponent("service-account.json").path

    /// A file holding `content`.
    static func keyFile(_ content: String) throws -> String {
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
        configuration.applyEnvironment(["MASTHEAD_GOOGLE_PLAY_SERVICE_ACCOUNT_FILE": validKeyFile])
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
        let path = Self.validKeyFile
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

    @Test func aGooglePlaySetting_withoutThePackageName_isRefused_namingIt() throws {
        var configuration = Self.startable()
        configuration.googlePlayPubSubAudience = "aud-1"
        configuration.applyEnvironment(["MASTHEAD_GOOGLE_PLAY_SERVICE_ACCOUNT_FILE": Self.validKeyFile])
        #expect(
            throws: ConfigurationError.invalid("googlePlayPackageName is not set, but googlePlayPubSubAudience is: Google Play would be off")
        ) { try configuration.validate() }
        // The key file alone is no problem.
        configuration.googlePlayPubSubAudience = ""
        try configuration.validate()
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
        let broken = try Self.keyFile(#"{"type": "service_account", "client_email": "a@b", "private_key_id": "k1", "private_key": "-----BEGIN PRIVATE KEY-----\nSECRETKEYBYTES\n-----END PRIVATE KEY-----\n"}"#)
        configuration.applyEnvironment(["MASTHEAD_GOOGLE_PLAY_SERVICE_ACCOUNT_FILE": broken])
        #expect(throws: ConfigurationError.self) { try configuration.validate() }
        do {
            try configuration.validate()
        } catch {
            #expect(error.message.hasPrefix("MASTHEAD_GOOGLE_PLAY_SERVICE_ACCOUNT_FILE (\"\(broken)\"): "), "\(error.message)")
            #expect(error.message.contains("$.private_key"), "\(error.message)")
            #expect(!error.message.contains("SECRETKEYBYTES"))
        }
    }

    @Test func aJWKSFile_withoutAUsableKey_isRefused_namingTheSetting() throws {
        var configuration = try Self.configured()
        configuration.googlePlayJWKSFile = try Self.keyFile(#"{"keys": []}"#)
        #expect(throws: ConfigurationError.self) { try configuration.validate() }
        configuration.googlePlayJWKSFile = GooglePlayTestKeys.directory.appendingPathComponent("jwks.json").path
        try configuration.validate()
    }
}
