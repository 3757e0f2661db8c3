import Masthead
import MastheadStorage

/// `entitlements.changed` events: written by a hook in the commit queue for the readers each job
/// changed, and by the sweeper for changes that come with time alone. Nothing of it runs when no
/// webhook URL is configured.
extension EntitlementService {
    /// How many due readers one sweep commit re-evaluates.
    static let sweepPage = 500

    /// Installs the hook writing events after each job, when webhook URLs are configured.
    func installEntitlementEvents() {
        guard !configuration.webhookURLs.isEmpty else { return }
        let reporter = EntitlementReporter(targets: configuration.webhookURLs)
        writer.install { [weak self] store, changes in
            guard let self else { return }
            let users = changes.compactMap { change -> String? in
                if case .user(let userId) = change { return userId }
                return nil
            }
            if users.isEmpty { return }
            try reporter.report(users: users, store: store, catalog: catalogAsMerged, now: clock())
        }
    }

    /// Re-evaluates every reader whose last reported answer may have changed with time alone by
    /// now (a lapse at an expiry with no notification, a grant's end, a grace period's end, an
    /// issue's publication) and writes the events for those that did, a page of readers per commit.
    /// Nothing when no webhook URL is configured. `continuing` is asked before each page: a
    /// stopping service commits no more pages (the readers left stay due for the next start).
    func sweepEntitlementEvents(while continuing: () -> Bool = { true }) throws {
        guard !configuration.webhookURLs.isEmpty else { return }
        let reporter = EntitlementReporter(targets: configuration.webhookURLs)
        var more = true
        while more && continuing() {
            let now = clock()
            more = try writer.answer { [self] store in
                let users = try store.usersWithReportsDue(by: now, limit: Self.sweepPage)
                try reporter.sweep(users: users, store: store, catalog: catalogAsMerged, now: now)
                return users.count == Self.sweepPage
            }
        }
    }

    /// Starts the sweeper's thread: a sweep now and every `webhookSweepIntervalSeconds`, until
    /// ``close()``; nothing when no webhook URL is configured. A sweep that fails is tried again at
    /// the next interval (the readers stay due).
    public func startSweepingEntitlementEvents() {
        guard !configuration.webhookURLs.isEmpty else { return }
        eventSweeper.start(intervalSeconds: configuration.webhookSweepIntervalSeconds) { [self] in
            try? sweepEntitlementEvents(while: { !eventSweeper.isStopping })
        }
    }
}
