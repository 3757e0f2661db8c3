import Synchronization

/// What an ``HTTPServer`` counts as it runs, for an application's metrics; made before the server
/// so that the application can hold it.
public final class HTTPServerCounters: Sendable {
    private let backoffs = Atomic<Int>(0)
    private let budgetRefusals = Atomic<Int>(0)

    /// Counters at zero.
    public init() {}

    /// Times a loop stopped watching the listener for a while because `accept` failed (out of
    /// file descriptors, `EMFILE`/`ENFILE`, or of memory).
    public var acceptBackoffs: Int { backoffs.load(ordering: .relaxed) }

    /// Requests answered 503 because their body would have taken the bodies held, all connections
    /// together, past `maxBufferedBodyBytes`.
    public var bodyBudgetRefusals: Int { budgetRefusals.load(ordering: .relaxed) }

    func countAcceptBackoff() { backoffs.add(1, ordering: .relaxed) }

    func countBodyBudgetRefusal() { budgetRefusals.add(1, ordering: .relaxed) }
}
