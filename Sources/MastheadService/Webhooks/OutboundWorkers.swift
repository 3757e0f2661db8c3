import Dispatch
import Foundation
import Masthead
import MastheadStorage
import Synchronization

/// The service's side of delivering the outbox: the delivery threads (started by
/// ``EntitlementService/startDeliveringOutbound()``, stopped by ``stop()``), what wakes them,
/// the counters `/metrics` shows and the log.
///
/// Each thread delivers while messages are due, then waits for a wake-up (``wakeUp()``, when
/// this process has enqueued a message) or a second (for other instances' messages and
/// retries coming due). Stopping lets each thread finish the request in flight (at most
/// `webhookTimeoutSeconds`) and record it, and claims nothing more.
final class OutboundWorkers: Sendable {
    /// Counted attempts, for `/metrics`.
    struct Counters: Sendable, Hashable {
        var delivered = 0
        var retried = 0
        var failed = 0
        /// Outcomes not recorded: the claim had ended (a lease run out, a replay).
        var superseded = 0
    }

    private let counters = Mutex(Counters())
    private let log = LogLines(prefix: "webhooks: ")
    /// Whether the threads must stop, how many are running, and how many wake-ups are signalled
    /// and not yet taken (at most one per thread, however many commits ask).
    private let state = Mutex<(stopping: Bool, running: Int, wakes: Int)>((false, 0, 0))
    private let wake = DispatchSemaphore(value: 0)
    private let stopped = DispatchSemaphore(value: 0)
    /// When the outbox was last pruned, on the monotonic clock (milliseconds).
    private let lastPruned = Mutex<Int64?>(nil)

    /// The longest wait between two looks at the outbox: a second.
    static let pollMilliseconds = 1000
    /// How often delivered and parked messages past their retention are deleted: a minute.
    static let pruneMilliseconds: Int64 = 60_000

    /// Sends the log's lines to `sink` instead (tests read them).
    func logLines(to sink: @escaping @Sendable (String) -> Void) { log.send(to: sink) }

    /// Writes one line, `webhooks: …`.
    func note(_ line: String) { log.note(line) }

    /// Counts an attempt's outcome.
    func count(_ outcome: OutboundOutcome, recorded: Bool) {
        counters.withLock { counters in
            guard recorded else { return counters.superseded += 1 }
            switch outcome {
            case .delivered: counters.delivered += 1
            case .retry: counters.retried += 1
            case .failed: counters.failed += 1
            // Not an attempt: the claim was given back.
            case .notSent: break
            }
        }
    }

    /// The counters now.
    var counted: Counters { counters.withLock { $0 } }

    /// Whether the outbox is due for pruning now (once a minute, by one thread); marks it pruned.
    func takePruning(monotonicMilliseconds now: Int64) -> Bool {
        lastPruned.withLock { last in
            if let last, now - last < Self.pruneMilliseconds { return false }
            last = now
            return true
        }
    }

    /// Starts `threads` threads, each running `pass` until it answers false (nothing was due),
    /// then waiting for ``wakeUp()`` or a second, until ``stop()``.
    func start(threads: Int, pass: @escaping @Sendable (_ stopping: @escaping @Sendable () -> Bool) -> Bool) {
        let started = state.withLock { state -> Bool in
            guard state.running == 0, !state.stopping else { return false }
            state.running = threads
            return true
        }
        guard started else { return }
        let stopping: @Sendable () -> Bool = { [self] in state.withLock { $0.stopping } }
        for index in 0..<threads {
            let thread = Thread { [self] in
                while !stopping() {
                    if pass(stopping) { continue }
                    if wake.wait(timeout: .now() + .milliseconds(Self.pollMilliseconds)) == .success {
                        state.withLock { $0.wakes = max(0, $0.wakes - 1) }
                    }
                }
                stopped.signal()
            }
            thread.name = "webhooks-\(index)"
            thread.start()
        }
    }

    /// Whether ``stop()`` was called.
    var isStopping: Bool { state.withLock { $0.stopping } }

    /// Wakes the threads: a message may have been enqueued. Wake-ups not yet taken are not
    /// counted again, so that many commits in a row wake each thread once.
    func wakeUp() {
        let signals = state.withLock { state -> Int in
            let more = max(0, state.running - state.wakes)
            state.wakes += more
            return more
        }
        for _ in 0..<signals { wake.signal() }
    }

    /// Stops the threads: each finishes the request in flight and records it, then claims no
    /// more; returns once all have stopped. Nothing when none was started.
    func stop() {
        let running = state.withLock { state -> Int in
            state.stopping = true
            return state.running
        }
        for _ in 0..<running { wake.signal() }
        for _ in 0..<running { stopped.wait() }
        state.withLock { $0.running = 0 }
    }

    /// The `/metrics` lines: attempts by outcome since the start, and the outbox's backlog (from
    /// the database, shared by every instance; left out when it cannot be read): pending and
    /// parked messages, and the age of the oldest pending one as of `now` (0 when none).
    static func metricsLines(_ counted: Counters, backlog: OutboxBacklog?, now: Instant) -> [String] {
        var lines = [
            "# HELP masthead_webhook_deliveries_total Delivery attempts of webhooks and forwarded notifications by outcome "
                + "(superseded: not recorded, the claim had ended).",
            "# TYPE masthead_webhook_deliveries_total counter",
        ]
        for (outcome, count) in [
            ("delivered", counted.delivered), ("retried", counted.retried), ("failed", counted.failed), ("superseded", counted.superseded),
        ] {
            lines.append("masthead_webhook_deliveries_total{outcome=\"\(outcome)\"} \(count)")
        }
        guard let backlog else { return lines }
        let age = backlog.oldestPending.map { max(0, now.milliseconds - $0.milliseconds) / 1000 } ?? 0
        return lines + [
            "# HELP masthead_webhook_pending Messages of the outbox still to deliver.", "# TYPE masthead_webhook_pending gauge",
            "masthead_webhook_pending \(backlog.pending)",
            "# HELP masthead_webhook_failed Messages of the outbox parked after a day of failures (replayable).",
            "# TYPE masthead_webhook_failed gauge", "masthead_webhook_failed \(backlog.failed)",
            "# HELP masthead_webhook_oldest_pending_seconds Age of the oldest pending message (0: none).",
            "# TYPE masthead_webhook_oldest_pending_seconds gauge", "masthead_webhook_oldest_pending_seconds \(age)",
        ]
    }
}
