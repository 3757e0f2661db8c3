/// How long a durable call to Apple waits before its next attempt: `first` after the first
/// attempt, twice as long after each next one, never more than `longest`.
struct RetryBackoff: Sendable {
    /// The wait after the first attempt, in milliseconds.
    let first: Int64
    /// The longest wait, in milliseconds.
    let longest: Int64

    /// The wait before the attempt after `attempt` (from 1).
    func wait(afterAttempt attempt: Int) -> Int64 {
        min(first << Int64(min(max(attempt - 1, 0), 20)), longest)
    }
}
