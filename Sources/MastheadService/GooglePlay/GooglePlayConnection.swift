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
    /// The verifier, made once Google's keys are first had (from `googlePlayJWKSFile` at once,
    /// else fetched from `googlePlayJWKSURL` by the first push), and that first fetch.
    private let keys: Mutex<KeysState>
    private let audience: String
    private let pushServiceAccount: String
    private let fetchKeys: @Sendable () throws(GooglePlayError) -> GoogleSigningKeys
    /// The service's lines about Google Play (to standard error; a test's sink).
    let log = LogLines(prefix: "google play: ")
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
        keys = Mutex(KeysState(verifier: fromFile.map { PubSubPushVerifier(audience: audience, serviceAccount: account, keys: $0, refresh: { try fetchKeys() }) }))
    }

    /// The verifier once made, and the first fetch of Google's keys before it is.
    private struct KeysState {
        var verifier: PubSubPushVerifier?
        /// Whether a push is fetching the first keys.
        var fetching = false
        /// When the last first fetch failed (monotonic milliseconds), and why.
        var failed: (at: Int64, reason: String)?
    }

    /// The shortest time between a failed first fetch of Google's keys and the next.
    static let keyFetchRetryMilliseconds: Int64 = 10_000

    /// The system's clock, as an instant.
    @Sendable static func systemNow() -> Instant { Instant(milliseconds: SystemClock.epochMilliseconds()) }

    /// What ``admitPush(authorization:)`` found.
    enum PushAdmission {
        /// The push's token verified.
        case verified
        /// No keys yet: the caller fetches them, on a Google thread, with ``fetchKeysAndVerify(authorization:)``
        /// (or gives the fetch up with ``abandonKeyFetch()``).
        case fetchKeys
    }

    /// Judges a push request's `Authorization` field on the calling thread (an event loop),
    /// without asking Google: a missing or malformed field is refused, and once Google's keys are
    /// had the token is verified (RS256 is cheap), so that only a verified push takes a Google
    /// thread. Before the keys are had one push at a time fetches them (``PushAdmission/fetchKeys``);
    /// the others, and every push within ``keyFetchRetryMilliseconds`` of a failed fetch, are
    /// refused as a temporary failure rather than queued.
    /// - Throws: ``GooglePlayServiceError/pushRefused(_:)``; `unavailable` while the keys are
    ///   being fetched or cannot be.
    func admitPush(authorization: String?) throws(GooglePlayServiceError) -> PushAdmission {
        do { try PubSubPushVerifier.checkForm(authorization: authorization) } catch { throw Self.refusal(error) }
        let now = SystemClock.monotonicMilliseconds()
        let (verifier, refusal) = keys.withLock { keys -> (PubSubPushVerifier?, GooglePlayServiceError?) in
            if let verifier = keys.verifier { return (verifier, nil) }
            if keys.fetching { return (nil, .unavailable("Google's signing keys are being fetched; try again shortly")) }
            if let failed = keys.failed, now - failed.at < Self.keyFetchRetryMilliseconds {
                return (nil, .unavailable("Google's signing keys could not be fetched: \(failed.reason)"))
            }
            keys.fetching = true
            return (nil, nil)
        }
        if let refusal { throw refusal }
        guard let verifier else { return .fetchKeys }
        try Self.verify(authorization, with: verifier)
        return .verified
    }

    /// Fetches Google's keys for the push ``admitPush(authorization:)`` let fetch them, on the
    /// calling thread (a Google thread), makes the verifier, and verifies the push.
    /// - Throws: ``GooglePlayServiceError/pushRefused(_:)``, or `unavailable` when the keys cannot be fetched.
    func fetchKeysAndVerify(authorization: String?) throws(GooglePlayServiceError) {
        let fetched: Result<GoogleSigningKeys, GooglePlayError>
        do { fetched = .success(try fetchKeys()) } catch { fetched = .failure(error) }
        let now = SystemClock.monotonicMilliseconds()
        let (audience, account, fetchKeys) = (audience, pushServiceAccount, fetchKeys)
        let verifier = keys.withLock { keys -> PubSubPushVerifier? in
            keys.fetching = false
            switch fetched {
            case .success(let fetched):
                keys.failed = nil
                if keys.verifier == nil {
                    keys.verifier = PubSubPushVerifier(audience: audience, serviceAccount: account, keys: fetched, refresh: { try fetchKeys() })
                }
            case .failure(let error):
                keys.failed = (now, error.description)
            }
            return keys.verifier
        }
        guard let verifier else {
            let reason = if case .failure(let error) = fetched { error.description } else { "no keys" }
            log.note("push signing keys not fetched: \(reason)")
            throw .unavailable(reason)
        }
        try Self.verify(authorization, with: verifier)
    }

    /// Gives up the fetch ``admitPush(authorization:)`` let a push make (no Google thread took it).
    func abandonKeyFetch() {
        keys.withLock { $0.fetching = false }
    }

    /// Verifies a push's token with `verifier` at the system's time.
    private static func verify(_ authorization: String?, with verifier: PubSubPushVerifier) throws(GooglePlayServiceError) {
        do { _ = try verifier.verify(authorization: authorization, now: systemNow()) } catch { throw refusal(error) }
    }

    /// The answer to a push the verifier refused: 401, or 503 when the key cannot be known yet.
    private static func refusal(_ error: GooglePlayError) -> GooglePlayServiceError {
        if case .pushRefused = error { return .pushRefused(error.description) }
        return .unavailable(error.description)
    }

    /// Fetches Google's push signing keys again on the calling thread when they are due (half
    /// their trust time old: ``PubSubPushVerifier/refreshIfDue()``), so that a key Google retires
    /// stops being trusted and a new one is known before the first push signed with it; nothing
    /// before the first push made the verifier. A failed fetch keeps the keys in use.
    func refreshSigningKeys() {
        _ = try? keys.withLock({ $0.verifier })?.refreshIfDue()
    }

    /// The service's error for a failure asking Google; one that names the service account (Google
    /// refused it) is logged whole here, as the answer does not name it.
    func failure(_ error: GooglePlayError) -> GooglePlayServiceError {
        if case .notAuthorized = error { log.note(error.description) }
        return GooglePlayServiceError(error)
    }

    /// How many requests hold a Google thread now; one is let go just after its answer is given.
    var threadsInUse: Int { running.withLock { $0 } }

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
