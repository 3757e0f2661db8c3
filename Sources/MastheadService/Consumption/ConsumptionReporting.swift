import Dispatch
import Foundation
import MastheadAppStore
import Synchronization

/// The service's side of answering Apple's refund requests with consumption information: the
/// settings, the record of issues served, the counters shown in `/metrics`, the log, and the
/// thread that sends what is due.
final class ConsumptionReporting: Sendable {
    /// Whether the `consumptionInformation` setting is on: issues served are recorded and
    /// `CONSUMPTION_REQUEST` notifications queued.
    let enabled: Bool
    /// What every request says of the publisher's preferred outcome (nil: left out).
    let refundPreference: ConsumptionRequest.RefundPreference?
    /// What every request says of samples provided before the purchase.
    let sampleContentProvided: Bool
    /// Issues served, recorded once per pair.
    let served = ServedIssueRecorder()

    /// What `/metrics` counts.
    struct Counters: Sendable {
        /// Requests queued from notifications.
        var queued = 0
        /// Requests Apple accepted.
        var sent = 0
        /// Requests not sent: the reader had not consented.
        var notConsented = 0
        /// Notifications not queued: their transaction is linked to no user.
        var notLinked = 0
        /// Sends that failed and were rescheduled.
        var retried = 0
        /// Requests given up: Apple refused them, or its 12 hours passed.
        var givenUp = 0
    }

    private let counters = Mutex(Counters())
    private let log = LogLines(prefix: "consumption: ")
    /// The sending thread's state: whether it must stop, and the semaphores that wake it and say it stopped.
    private let worker = Mutex<(running: Bool, stopping: Bool)>((false, false))
    private let wake = DispatchSemaphore(value: 0)
    private let stopped = DispatchSemaphore(value: 0)

    /// Reporting with the service's settings; lines go to standard error.
    init(enabled: Bool, refundPreference: ConsumptionRequest.RefundPreference?, sampleContentProvided: Bool) {
        self.enabled = enabled
        self.refundPreference = refundPreference
        self.sampleContentProvided = sampleContentProvided
    }

    /// Sends the log's lines to `sink` instead (tests read them).
    func logLines(to sink: @escaping @Sendable (String) -> Void) { log.send(to: sink) }

    /// Writes one line, `consumption: …`.
    func note(_ line: String) { log.note(line) }

    /// Updates the counters.
    func count(_ change: (inout Counters) -> Void) { counters.withLock { change(&$0) } }

    /// The counters now.
    var counted: Counters { counters.withLock { $0 } }

    /// Starts the thread running `pass` now, at every ``wakeUp()`` and at least every
    /// `intervalSeconds`, until ``stop()``.
    func start(intervalSeconds: Int, pass: @escaping @Sendable () -> Void) {
        let started = worker.withLock { state -> Bool in
            guard !state.running else { return false }
            state.running = true
            return true
        }
        guard started else { return }
        let thread = Thread { [self] in
            while !worker.withLock({ $0.stopping }) {
                pass()
                _ = wake.wait(timeout: .now() + .seconds(intervalSeconds))
            }
            stopped.signal()
        }
        thread.name = "consumption"
        thread.start()
    }

    /// Wakes the sending thread (a request was queued).
    func wakeUp() { wake.signal() }

    /// Stops the sending thread, after the pass under way; nothing when it was not started.
    func stop() {
        let running = worker.withLock { state -> Bool in
            state.stopping = true
            return state.running
        }
        guard running else { return }
        wake.signal()
        stopped.wait()
    }

    /// The `/metrics` lines, when the feature is on.
    func metricsLines(pending: Int?) -> [String] {
        guard enabled else { return [] }
        let counted = self.counted
        var lines = [
            "# HELP masthead_consumption_requests_total Refund requests (CONSUMPTION_REQUEST) by outcome.",
            "# TYPE masthead_consumption_requests_total counter",
        ]
        for (outcome, count) in [
            ("queued", counted.queued), ("sent", counted.sent), ("not_consented", counted.notConsented), ("not_linked", counted.notLinked),
            ("retried", counted.retried), ("given_up", counted.givenUp),
        ] {
            lines.append("masthead_consumption_requests_total{outcome=\"\(outcome)\"} \(count)")
        }
        if let pending {
            lines += ["# HELP masthead_consumption_requests_pending Refund requests queued to answer.", "# TYPE masthead_consumption_requests_pending gauge",
                      "masthead_consumption_requests_pending \(pending)"]
        }
        lines += [
            "# HELP masthead_issues_served_recorded_total First-served (user, issue) pairs written to the issues_served table.",
            "# TYPE masthead_issues_served_recorded_total counter", "masthead_issues_served_recorded_total \(served.recordedCount)",
            "# HELP masthead_issues_served_dropped_total First-served pairs dropped because the queue was full (recorded by a later answer).",
            "# TYPE masthead_issues_served_dropped_total counter", "masthead_issues_served_dropped_total \(served.droppedCount)",
        ]
        return lines
    }
}
