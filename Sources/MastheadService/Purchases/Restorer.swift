import Dispatch
import MastheadAppStore
import Synchronization

/// Runs restores (`POST /v1/users/{userId}/restore`) on threads of their own, so that no event
/// loop waits for Apple, at most ``maxConcurrent`` at a time; one more is refused (503
/// `too_many_restores`) rather than queued behind Apple's answers. A restore asks Apple until its
/// deadline (`restoreTimeoutMilliseconds`) at the latest, so a slow or silent Apple holds a slot
/// no longer than that.
///
/// It holds one App Store Server API client, made from the service's configuration when the
/// router is made, so that its token is reused across restores.
final class Restorer: Sendable {
    /// Most restores asking Apple at once.
    static let maxConcurrent = 4

    /// The client, nil when no key is configured, or why it could not be made.
    private let client: Result<AppStoreServerAPIClient?, ConfigurationError>
    /// Restores asking Apple now.
    private let running = Mutex(0)
    private let queue = DispatchQueue(label: "restore", attributes: .concurrent)

    /// Makes the client the configuration of `service` asks for.
    init(service: EntitlementService) {
        do { client = .success(try service.appStoreServerAPIClient()) } catch { client = .failure(error) }
    }

    /// Runs `work` with the client on a restore thread, or answers why not: no client, or
    /// ``maxConcurrent`` restores running already.
    func run(_ work: @escaping @Sendable (AppStoreServerAPIClient) -> Void) -> PurchaseError? {
        let api: AppStoreServerAPIClient
        switch client {
        case .failure(let error): return .appStoreServerAPINotConfigured(error.description)
        case .success(nil):
            return .appStoreServerAPINotConfigured(
                "no key is configured (MASTHEAD_APP_STORE_KEY_ID, MASTHEAD_APP_STORE_ISSUER_ID and MASTHEAD_APP_STORE_PRIVATE_KEY_FILE)")
        case .success(let configured?): api = configured
        }
        let admitted = running.withLock { count in
            guard count < Self.maxConcurrent else { return false }
            count += 1
            return true
        }
        guard admitted else { return .tooManyRestores(Self.maxConcurrent) }
        queue.async { [self] in
            defer { running.withLock { $0 -= 1 } }
            work(api)
        }
        return nil
    }
}
