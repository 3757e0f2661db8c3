import Dispatch
import Masthead
import MastheadAppStore
import MastheadClock
import MastheadGooglePlay
import Synchronization

/// What the service needs to talk with Google for one app: the Play Developer API client (as
/// the service account), the Pub/Sub push token verifier, and the threads that ask Google, so
/// that no event loop waits for it: at most ``maxConcurrent`` requests at once, one more is
/// refused (503 `google_play_busy`, which Pub/Sub retries) rather than queued.
final class GooglePlayConnection: Sendable {
    /// Most requests asking Google at once.
    static let maxConcurrent = 8

    let packageName: String
    let client: GooglePlayClient
    /// The verifier, made on the first push (its keys are fetched from `googlePlayJWKSURL` then
    /// when no `googlePlayJWKSFile` is given); nil until then.
    private let verifier: Mutex<PubSubPushVerifier?>
    private let audience: String
    private let pushServiceAccount: String
    private let fetchKeys: @Sendable () throws(GooglePlayError) -> GoogleSigningKeys
    private let running = Mutex(0)
    private let queue = DispatchQueue(label: "google-play", attributes: .concurrent)
    /// The thread retrying acknowledgements (``EntitlementService/startAcknowledgingGooglePlayPurchases()``).
    let acknowledgements = PeriodicThread(name: "google-play-acknowledgements")

    /// Makes the client and the verifier `configuration` asks for. Google's tokens (the access
    /// token's grant, the push tokens) are judged by the system's clock, which is Google's time,
    /// whatever clock the service decides entitlements by.
    /// - Throws: ``ConfigurationError`` for a key file or JWKS file that cannot be used.
    init(configuration: ServiceConfiguration) throws(ConfigurationError) {
        packageName = configuration.googlePlayPackageName
        let transport = configuration.appStoreTransport
        var retries = GooglePlayClient.Retries()
        retries.attempts = configuration.googlePlayAttempts
        retries.backoffMilliseconds = configuration.googlePlayBackoffMilliseconds
        client = GooglePlayClient(
            account: try configuration.googlePlayServiceAccount(), apiURL: configuration.googlePlayAPIURL, tokenURL: configuration.googlePlayTokenURL,
            allowHTTP: configuration.googlePlayAllowHTTP, transport: transport, clock: Self.systemNow, retries: retries)
        audience = configuration.googlePlayPubSubAudience
        pushServiceAccount = configuration.googlePlayPubSubServiceAccount
        let url = configuration.googlePlayJWKSURL
        let allowHTTP = configuration.googlePlayAllowHTTP
        fetchKeys = { () throws(GooglePlayError) -> GoogleSigningKeys in try GoogleSigningKeys.fetch(from: url, allowHTTP: allowHTTP, transport: transport) }
        let fromFile = try configuration.googlePlaySigningKeysFromFile()
        let audience = audience, account = pushServiceAccount, fetchKeys = fetchKeys
        verifier = Mutex(fromFile.map { PubSubPushVerifier(audience: audience, serviceAccount: account, keys: $0, refresh: { try fetchKeys() }) })
    }

    /// The system's clock, as an instant.
    @Sendable static func systemNow() -> Instant { Instant(milliseconds: SystemClock.epochMilliseconds()) }

    /// Verifies a push request's `Authorization` field at the system's time; the first call fetches Google's keys when
    /// no file gave them (on a Google thread: ``run(_:)``).
    /// - Throws: ``GooglePlayServiceError/pushRefused(_:)``, or `unavailable` when the keys cannot be fetched.
    func verifyPush(authorization: String?) throws(GooglePlayServiceError) {
        let now = Self.systemNow()
        let current: PubSubPushVerifier
        if let made = verifier.withLock({ $0 }) {
            current = made
        } else {
            let keys: GoogleSigningKeys
            do { keys = try fetchKeys() } catch { throw .unavailable(error.description) }
            let fetchKeys = fetchKeys
            let made = PubSubPushVerifier(audience: audience, serviceAccount: pushServiceAccount, keys: keys, refresh: { try fetchKeys() })
            current = verifier.withLock { stored in
                if let stored { return stored }
                stored = made
                return made
            }
        }
        do { _ = try current.verify(authorization: authorization, now: now) } catch {
            if case .pushRefused = error { throw .pushRefused(error.description) }
            throw .unavailable(error.description)
        }
    }

    /// Fetches Google's push signing keys again on the calling thread when they are due (half
    /// their trust time old: ``PubSubPushVerifier/refreshIfDue()``), so that a key Google retires
    /// stops being trusted and a new one is known before the first push signed with it; nothing
    /// before the first push made the verifier. A failed fetch keeps the keys in use.
    func refreshSigningKeys() {
        _ = try? verifier.withLock({ $0 })?.refreshIfDue()
    }

    /// Runs `work` on a Google thread, or answers why not: ``maxConcurrent`` requests are asking already.
    func run(_ work: @escaping @Sendable () -> Void) -> GooglePlayServiceError? {
        let admitted = running.withLock { count in
            guard count < Self.maxConcurrent else { return false }
            count += 1
            return true
        }
        guard admitted else { return .busy(Self.maxConcurrent) }
        queue.async { [self] in
            defer { running.withLock { $0 -= 1 } }
            work()
        }
        return nil
    }
}
