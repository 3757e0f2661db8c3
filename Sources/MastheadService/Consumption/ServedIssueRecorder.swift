import Masthead
import MastheadStorage
import Synchronization

/// Records the first time each (user, publication, issue) was answered readable by the download
/// check, without ever making the check wait for the database.
///
/// The check notes a readable answer (``note(userId:publicationId:issueId:at:)``) once per cached
/// answer body (the answers reusing the body note nothing): a pair already remembered costs one
/// set lookup under a lock; a new one is remembered and queued, and the first pair queued asks for a drain, which the store's writer runs in its next group commit
/// (`INSERT … ON CONFLICT DO NOTHING`, so the table keeps the first instant whatever any process
/// wrote before). Both are bounded: at most ``maxQueued`` pairs wait (past it a pair is dropped
/// from this round, counted, and recorded by a later readable answer), and at most
/// ``maxRemembered`` pairs are remembered (the set is emptied when full: a pair seen again is
/// queued again, and the table ignores it).
final class ServedIssueRecorder: Sendable {
    /// Most pairs waiting for the writer.
    static let maxQueued = 10_000
    /// Most pairs remembered as recorded (or queued): about 100 MB at 100 bytes a pair.
    static let maxRemembered = 1_000_000

    private struct Pair: Hashable {
        var user: ExactKey
        var publication: ExactKey
        var issue: ExactKey
    }

    private struct State {
        var remembered: Set<Pair> = []
        var queued: [ServedIssue] = []
        /// Whether a drain was asked for and has not taken the queue yet.
        var drainAsked = false
        /// Pairs taken by the writer and not yet committed (or failed).
        var writing = 0
        var dropped = 0
        var recorded = 0
    }

    private let state = Mutex(State())
    private let maxQueued: Int
    private let maxRemembered: Int

    /// A recorder with the given bounds (the defaults in service).
    init(maxQueued: Int = ServedIssueRecorder.maxQueued, maxRemembered: Int = ServedIssueRecorder.maxRemembered) {
        self.maxQueued = maxQueued
        self.maxRemembered = maxRemembered
    }

    /// What noting a pair came to.
    enum Noted: Equatable {
        /// Remembered already: recorded, or on its way.
        case known
        /// Queued behind others; a drain is asked for already.
        case queued
        /// Queued first since the last drain: the caller asks for one.
        case queuedFirst
        /// Dropped: the queue is full.
        case dropped
    }

    /// Notes a readable answer served at `at` (read only for a pair not remembered).
    func note(userId: String, publicationId: String, issueId: String, at: () -> Instant) -> Noted {
        let pair = Pair(user: ExactKey(userId), publication: ExactKey(publicationId), issue: ExactKey(issueId))
        return state.withLock { state -> Noted in
            if state.remembered.contains(pair) { return .known }
            guard state.queued.count < maxQueued else {
                state.dropped += 1
                return .dropped
            }
            if state.remembered.count >= maxRemembered { state.remembered.removeAll() }
            state.remembered.insert(pair)
            state.queued.append(ServedIssue(userId: userId, publicationId: publicationId, issueId: issueId, firstServed: at()))
            guard !state.drainAsked else { return .queued }
            state.drainAsked = true
            return .queuedFirst
        }
    }

    /// Takes every queued pair, for the writer; later pairs ask for a new drain.
    func take() -> [ServedIssue] {
        state.withLock { state in
            state.drainAsked = false
            state.writing += state.queued.count
            defer { state.queued.removeAll(keepingCapacity: true) }
            return state.queued
        }
    }

    /// Counts pairs written (new or not), or forgets pairs whose write failed so that a later
    /// answer queues them again.
    func finished(_ issues: [ServedIssue], written: Bool) {
        state.withLock { state in
            state.writing -= issues.count
            if written {
                state.recorded += issues.count
                return
            }
            for issue in issues {
                state.remembered.remove(Pair(user: ExactKey(issue.userId), publication: ExactKey(issue.publicationId), issue: ExactKey(issue.issueId)))
            }
        }
    }

    /// Pairs waiting for the writer.
    var queuedCount: Int { state.withLock { $0.queued.count } }
    /// Pairs not yet committed: waiting, or taken by a write under way.
    var unwrittenCount: Int { state.withLock { $0.queued.count + $0.writing } }
    /// Pairs dropped because the queue was full.
    var droppedCount: Int { state.withLock { $0.dropped } }
    /// Pairs handed to the table (each first-served pair once, unless the remembered set was emptied).
    var recordedCount: Int { state.withLock { $0.recorded } }
}
