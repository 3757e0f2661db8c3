import Foundation
import Masthead
import MastheadGooglePlay

/// The Google Play target: the first byte chooses the reader of the rest — a JWKS document
/// (`GoogleSigningKeys`), a Pub/Sub push `Authorization` field (`PubSubPushVerifier` with the
/// test keys), or a service account key file (`GoogleServiceAccount`).
enum GooglePlayFuzzing {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Tests/Fixtures/google-play")

    /// The audience and account the seed tokens carry.
    static let audience = "https://masthead.example/v1/notifications/google-play"
    static let serviceAccount = "pubsub-push@masthead-test.iam.gserviceaccount.com"
    /// 2020-06-17T00:00:10Z: inside the seed tokens' hour.
    static let now = Instant(milliseconds: 1_592_352_010_000)

    static let verifier: PubSubPushVerifier = {
        guard let jwks = FileManager.default.contents(atPath: folder.appendingPathComponent("jwks.json").path) else { fatalError("cannot read jwks.json") }
        do {
            return PubSubPushVerifier(audience: audience, serviceAccount: serviceAccount, keys: try GoogleSigningKeys(jwks: [UInt8](jwks)), refresh: nil)
        } catch { fatalError("jwks.json: \(error)") }
    }()

    static func run(_ bytes: [UInt8]) {
        guard let selector = bytes.first else { return }
        let rest = Array(bytes.dropFirst())
        switch selector % 3 {
        case 0:
            guard let keys = try? GoogleSigningKeys(jwks: rest) else { return }
            precondition(!keys.keyIds.isEmpty, "a JWKS was accepted without a key")
            for id in keys.keyIds { precondition(keys.key(id: id) != nil, "a listed kid has no key") }
        case 1:
            guard let identity = try? verifier.verify(authorization: String(decoding: rest, as: UTF8.self), now: now) else { return }
            precondition(Array(identity.email.utf8) == Array(serviceAccount.utf8), "a token of another account was accepted")
            precondition(identity.expires.milliseconds > now.milliseconds - PubSubPushVerifier.skewSeconds * 1000, "an expired token was accepted")
        default:
            guard let account = try? GoogleServiceAccount(keyFile: rest) else { return }
            precondition(!account.clientEmail.isEmpty && !account.privateKeyId.isEmpty, "a key file was accepted without its email or key id")
        }
    }
}
