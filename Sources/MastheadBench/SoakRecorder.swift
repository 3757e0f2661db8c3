import Synchronization

/// What the soak's clients did since the last sample, shared by their threads.
final class SoakRecorder: Sendable {
    /// The kinds of traffic whose answers are counted.
    enum Kind { case check, receipt, notification, slow }

    struct Interval {
        /// Answers, by kind.
        var checks = 0
        var receipts = 0
        var notifications = 0
        var slow = 0
        /// Answers of 400 or more, and requests that got no answer.
        var errors = 0
        /// Seconds from request to answer, for the checks, receipts and notifications.
        var latencies: [Double] = []
        /// Requests written by the clients that never read.
        var pipelined = 0
        /// Idle connections found closed by the server (and opened again).
        var idleClosed = 0
        /// Every answer's status (0 for none).
        var statuses: [Int: Int] = [:]

        var answered: Int { checks + receipts + notifications + slow }
    }

    private let current = Mutex(Interval())
    /// Set when the run is over: every client loop checks it.
    let stopped = Atomic<Bool>(false)
    /// Users whose receipt was stored: the download checks ask about them.
    let users = Atomic<Int>(0)

    var isStopped: Bool { stopped.load(ordering: .relaxed) }

    func record(_ kind: Kind, status: Int?, seconds: Double) {
        current.withLock { interval in
            interval.statuses[status ?? 0, default: 0] += 1
            guard let status else {
                interval.errors += 1
                return
            }
            switch kind {
            case .check: interval.checks += 1
            case .receipt: interval.receipts += 1
            case .notification: interval.notifications += 1
            case .slow: interval.slow += 1
            }
            if kind != .slow { interval.latencies.append(seconds) }
            if status >= 400 { interval.errors += 1 }
        }
    }

    func recordPipelined(_ count: Int) { current.withLock { $0.pipelined += count } }

    func recordIdleClosed() { current.withLock { $0.idleClosed += 1 } }

    /// The interval since the last call, starting a new one.
    func take() -> Interval {
        current.withLock { interval in
            defer { interval = Interval() }
            return interval
        }
    }
}
