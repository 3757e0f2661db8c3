import Foundation
import Glibc
import MastheadCrypto
import MastheadTestSupport
import Synchronization
import Testing

/// `masthead serve` and `masthead refresh` with the Google Play settings, as an operator runs
/// them, against a fake Google.
struct GooglePlayProcessTests {
    static let package = "com.example.magazine"
    static let audience = "https://masthead.test/v1/notifications/google-play"
    static let keyFile = GooglePlayTestKeys.directory.appendingPathComponent("service-account.json").path

    /// The flags pointing the service at `fake`.
    static func flags(_ fake: FakeGooglePlay) -> [String] {
        [
            "--googlePlayPackageName", package, "--googlePlayPubSubAudience", audience, "--googlePlayPubSubServiceAccount", FakeGooglePlay.pushServiceAccount,
            "--googlePlayJWKSURL", fake.jwksURL, "--googlePlayAPIURL", fake.apiURL, "--googlePlayTokenURL", fake.tokenURL, "--googlePlayAllowHTTP",
            "--googlePlayBackoffMilliseconds", "1",
        ]
    }

    /// The same settings as a configuration file (`refresh` takes no Google Play flag).
    static func settingsFile(_ fake: FakeGooglePlay) -> String {
        #"{"googlePlayPackageName": "\#(package)", "googlePlayPubSubAudience": "\#(audience)", "googlePlayPubSubServiceAccount": "\#(FakeGooglePlay.pushServiceAccount)", "googlePlayJWKSURL": "\#(fake.jwksURL)", "googlePlayAPIURL": "\#(fake.apiURL)", "googlePlayTokenURL": "\#(fake.tokenURL)", "googlePlayAllowHTTP": true, "googlePlayBackoffMilliseconds": 1}"#
    }

    static func subscription(acknowledged: Bool) -> FakeGooglePlay.Subscription {
        FakeGooglePlay.Subscription(
            state: "SUBSCRIPTION_STATE_ACTIVE", startTime: "2020-02-20T12:00:00Z", latestOrderId: "GPA.3345-1234-5678-90123", acknowledged: acknowledged,
            lineItems: [.init(productId: "the_monthly", basePlanId: "monthly", expiryTime: "2020-03-20T12:00:00Z")])
    }

    /// A served notification, with the Pub/Sub push token, is read from Google, stored and
    /// acknowledged; the app's post links it; the reader may read February's issue. Neither the
    /// key nor an access token is ever written to the log.
    @Test func serve_withTheGooglePlaySettings_takesANotificationAndAPurchase() throws {
        let fake = try FakeGooglePlay(packageName: Self.package)
        defer { fake.stop() }
        fake.state.withLock { $0.set("token-a", Self.subscription(acknowledged: false)) }
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try ServerProcess(
            database: folder.appendingPathComponent("play.sqlite").path, extra: Self.flags(fake) + ["--accessLog", "-"],
            environment: ["MASTHEAD_GOOGLE_PLAY_SERVICE_ACCOUNT_FILE": Self.keyFile])
        let client = try TestClient(port: server.port)
        let notification = #"{"version": "1.0", "packageName": "\#(Self.package)", "eventTimeMillis": "1582200001000", "subscriptionNotification": {"version": "1.0", "notificationType": 4, "purchaseToken": "token-a", "subscriptionId": "the_monthly"}}"#
        let push = #"{"message": {"data": "\#(Base64.encode(Array(notification.utf8), .standard))", "messageId": "4711"}, "subscription": "projects/p/subscriptions/s"}"#
        let unauthenticated = client.request("POST", "/v1/notifications/google-play", body: Array(push.utf8))
        #expect(unauthenticated?.status == 401)
        let pushed = client.request("POST", "/v1/notifications/google-play", headers: ["Authorization": try fake.pushAuthorization(audience: Self.audience)], body: Array(push.utf8))
        #expect(pushed?.status == 200, "\(pushed?.body ?? "no answer")")
        #expect(pushed?.body == #"{"stored":true,"applied":true}"#)
        // Acknowledged after the answer, by the acknowledgement thread.
        let deadline = Date().addingTimeInterval(20)
        while fake.state.withLock({ $0.subscription("token-a")?.acknowledged }) != true && Date() < deadline { usleep(5_000) }
        #expect(fake.state.withLock { $0.subscription("token-a")?.acknowledged } == true)
        let api = ["Authorization": "Bearer api-token"]
        let posted = client.request(
            "POST", "/v1/users/ivy/google-play/purchases", headers: api, body: Array(#"{"packageName": "\#(Self.package)", "purchaseToken": "token-a"}"#.utf8))
        #expect(posted?.status == 200, "\(posted?.body ?? "no answer")")
        let check = client.request("GET", "/v1/users/ivy/issues/the-monthly/2020-03?at=2020-03-01T12:00:00Z", headers: api)
        #expect(check?.body.contains(#""readable":true"#) == true, "\(check?.body ?? "no answer")")
        let metrics = client.request("GET", "/metrics", headers: api)?.body ?? ""
        #expect(metrics.contains("masthead_google_play_unacknowledged_24h 0"))
        let stopped = server.stop(signal: SIGTERM)
        #expect(stopped.status == 0, "\(stopped.errors)")
        #expect(!stopped.errors.contains("PRIVATE KEY"))
        #expect(!stopped.errors.contains("ya29."))
        #expect(stopped.errors.contains("/v1/notifications/google-play"))
    }

    /// Google Play set without the service account's key file stops the start, naming the variable.
    @Test func serve_withoutTheKeyFile_exits78_namingTheVariable() throws {
        let fake = try FakeGooglePlay(packageName: Self.package)
        defer { fake.stop() }
        let outcome = try Tool.run(["serve", "--port", "0", "--database", "/tmp/never-\(UUID().uuidString).sqlite"] + Self.flags(fake), environment: ServerProcess.environment)
        #expect(outcome.status == 78)
        #expect(outcome.errors.contains("MASTHEAD_GOOGLE_PLAY_SERVICE_ACCOUNT_FILE is not set"), "\(outcome.errors)")
    }

    /// `masthead refresh` tries the acknowledgement owed and reads the voided purchases.
    @Test func refresh_retriesAcknowledgements_andReadsVoidedPurchases() throws {
        let fake = try FakeGooglePlay(packageName: Self.package)
        defer { fake.stop() }
        fake.state.withLock { state in
            state.set("token-a", Self.subscription(acknowledged: false))
            state.failures = [.init(status: 500, endpoint: .acknowledge), .init(status: 500, endpoint: .acknowledge)]
        }
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = folder.appendingPathComponent("play.sqlite").path
        let environment = ServerProcess.environment.merging(["MASTHEAD_GOOGLE_PLAY_SERVICE_ACCOUNT_FILE": Self.keyFile]) { $1 }
        let server = try ServerProcess(
            database: database, extra: Self.flags(fake) + ["--googlePlayAttempts", "2"], environment: ["MASTHEAD_GOOGLE_PLAY_SERVICE_ACCOUNT_FILE": Self.keyFile])
        let client = try TestClient(port: server.port)
        let posted = client.request(
            "POST", "/v1/users/ivy/google-play/purchases", headers: ["Authorization": "Bearer api-token"],
            body: Array(#"{"packageName": "\#(Self.package)", "purchaseToken": "token-a"}"#.utf8))
        #expect(posted?.status == 200, "\(posted?.body ?? "no answer")")
        // The acknowledgement thread tries it after the answer (both tries refused).
        let deadline = Date().addingTimeInterval(20)
        while fake.seen(.acknowledge).count < 2 && Date() < deadline { usleep(5_000) }
        _ = server.stop(signal: SIGTERM)
        #expect(fake.state.withLock { $0.subscription("token-a")?.acknowledged } == false)
        // The acknowledgement is due again a minute after its failure: this refresh, run at once, reports it owed.
        let config = folder.appendingPathComponent("play.json")
        try Data(Self.settingsFile(fake).utf8).write(to: config)
        let refresh = try Tool.run(["refresh", "--catalog", "Catalog/the-monthly", "--database", database, "--config", config.path], environment: environment)
        #expect(refresh.output.contains("refresh: google play: 0 acknowledged, 0 acknowledgements failed"), "\(refresh.output)\(refresh.errors)")
        #expect(refresh.output.contains("voided purchases on 1 pages"), "\(refresh.output)")
        #expect(fake.seen(.voidedPurchases).count == 1)
    }
}
