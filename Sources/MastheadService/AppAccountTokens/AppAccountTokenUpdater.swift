import Foundation
public import MastheadAppStore
import Masthead
import MastheadStorage

/// Sends the Set App Account Token calls links queued (a subscription bought without an app
/// account token, linked to a user who has one), so that Apple's later notifications of the
/// subscription carry the user's token.
///
/// Each call is claimed in the database before it is sent (another instance on the same database
/// does not send it too) and its outcome recorded after: `sent`; Apple's refusal (HTTP 4xx but
/// 401, 403 and 429: a Family Sharing purchase, an unknown transaction, …) gives it up at once;
/// a call whose subscription has since moved to another user, or whose user no longer has the
/// token, is given up unsent; any other failure (a refused key among them) is retried, the first
/// time after a minute and each next one twice as late (at most six hours, ``backoff``), until
/// `appAccountTokenUpdateAttempts` attempts, then it is given up. Every outcome is a line of the log (the original transaction id and the
/// environment, never the token) and counts in `masthead_app_account_token_updates_total`.
public struct AppAccountTokenUpdater: Sendable {
    public let service: EntitlementService
    public let client: AppStoreServerAPIClient
    /// Gets each log line, ending with a newline.
    let log: @Sendable (String) -> Void

    /// Most calls one run sends: the rest wait for the next run.
    static let maxPerRun = 100
    /// The waits before retries: a minute, doubled each attempt, at most six hours.
    static let backoff = RetryBackoff(first: 60_000, longest: 6 * 3_600_000)
    /// How long a claimed call is left to its sender before it is due again (a sender stopped
    /// mid-call): ten minutes, or longer when one call's tries, timeouts and waits
    /// (`appStoreServerAPIAttempts` × (`appStoreRequestTimeoutSeconds` +
    /// `appStoreServerAPIMaxWaitMilliseconds`)) may take longer.
    var leaseMilliseconds: Int64 {
        let configuration = service.configuration
        let oneTry = Int64(configuration.appStoreRequestTimeoutSeconds) * 1000 + Int64(configuration.appStoreServerAPIMaxWaitMilliseconds)
        return max(600_000, Int64(configuration.appStoreServerAPIAttempts) * oneTry)
    }

    /// Creates an updater sending through `client`; `log` gets each line (standard error for `serve`).
    public init(service: EntitlementService, client: AppStoreServerAPIClient, log: @escaping @Sendable (String) -> Void) {
        self.service = service
        self.client = client
        self.log = log
    }

    /// What one run did.
    public struct Report: Hashable, Sendable {
        public var sent = 0
        public var retried = 0
        public var failed = 0
    }

    /// Sends the calls due now, up to ``maxPerRun``, each once, while `continuing` says to go on
    /// (asked before each call: a stopping service sends no more); returns what came of them.
    /// - Throws: when the database cannot be written (the calls left wait for the next run).
    @discardableResult
    public func run(while continuing: () -> Bool = { true }) throws -> Report {
        var report = Report()
        for _ in 0..<Self.maxPerRun where continuing() {
            guard let claimed = try service.claimAppAccountTokenUpdate(leaseMilliseconds: leaseMilliseconds) else { break }
            let (update, withdrawn) = claimed
            let subscription = "original transaction id \(update.originalTransactionId) (\(update.environment == .production ? "Production" : "Sandbox"))"
            if let withdrawn {
                try give(up: update, reason: withdrawn, subscription, &report)
                continue
            }
            guard let token = UUID(uuidString: update.appAccountToken) else {
                try give(up: update, reason: "the stored app account token is not a UUID", subscription, &report)
                continue
            }
            let failure: AppStoreError?
            do throws(AppStoreError) {
                try client.setAppAccountToken(originalTransactionId: update.originalTransactionId, appAccountToken: token, environment: update.environment)
                failure = nil
            } catch {
                failure = error
            }
            guard let failure else {
                try service.recordAppAccountTokenUpdate(update, state: .sent, nextAttempt: nil, lastError: nil)
                log("app account token: set at Apple for \(subscription), user \(update.userId)\n")
                service.metrics.recordAppAccountTokenUpdates("sent")
                report.sent += 1
                continue
            }
            if Self.isFinal(failure) || update.attempts >= service.configuration.appAccountTokenUpdateAttempts {
                try give(up: update, reason: "after \(update.attempts) attempt(s): \(failure)", subscription, &report)
                continue
            }
            let wait = Self.retryWait(afterAttempt: update.attempts)
            try service.recordAppAccountTokenUpdate(update, state: .pending, nextAttempt: service.clock().adding(milliseconds: wait), lastError: "\(failure)")
            log("app account token: attempt \(update.attempts) for \(subscription) failed, retried in \(wait / 1000) s: \(failure)\n")
            service.metrics.recordAppAccountTokenUpdates("retried")
            report.retried += 1
        }
        return report
    }

    /// Records `update` as given up, and says why.
    private func give(up update: AppAccountTokenUpdate, reason: String, _ subscription: String, _ report: inout Report) throws {
        try service.recordAppAccountTokenUpdate(update, state: .failed, nextAttempt: nil, lastError: reason)
        log("app account token: given up for \(subscription): \(reason)\n")
        service.metrics.recordAppAccountTokenUpdates("failed")
        report.failed += 1
    }

    /// Whether Apple refused the call itself (HTTP 4xx but 401, 403 and 429: the purchase cannot
    /// take the token, or Apple does not know it), which no retry mends.
    static func isFinal(_ error: AppStoreError) -> Bool {
        if case .refused = error { return true }
        return false
    }

    /// The wait before the attempt after `attempt` (from 1), as ``backoff`` gives it.
    static func retryWait(afterAttempt attempt: Int) -> Int64 { backoff.wait(afterAttempt: attempt) }
}
