import Masthead
import Synchronization

/// How many gift codes each user may try: at most ``attempts`` within any ``window``, counted in
/// this process's memory (each instance on a shared database counts its own), so that guessing a
/// code (80 random bits) is hopeless.
///
/// Memory is bounded: at most ``maxUsers`` users are tracked; when that many tried a code within
/// the window, further users are refused until some of them age out (it fails closed).
final class RedemptionLimiter: Sendable {
    /// Attempts allowed per user within ``window``.
    let attempts: Int
    /// The window, in milliseconds.
    let window: Int64
    /// Users tracked at most.
    let maxUsers: Int
    private let tried = Mutex<[ExactKey: [Instant]]>([:])

    init(attempts: Int = 5, window: Int64 = 60_000, maxUsers: Int = 100_000) {
        self.attempts = attempts
        self.window = window
        self.maxUsers = maxUsers
    }

    /// Counts an attempt by `userId` at `now`; nil when it is allowed, else the whole seconds to
    /// wait before the next one is.
    func admit(_ userId: String, now: Instant) -> Int? {
        let user = ExactKey(userId)
        let since = now.adding(milliseconds: -window)
        return tried.withLock { tried -> Int? in
            var recent = (tried[user] ?? []).filter { $0 > since }
            if recent.count >= attempts {
                tried[user] = recent
                return RedemptionLimiter.seconds(until: recent[0].adding(milliseconds: window), from: now)
            }
            if recent.isEmpty && tried[user] == nil && tried.count >= maxUsers {
                tried = tried.filter { $0.value.contains { $0 > since } }
                if tried.count >= maxUsers { return RedemptionLimiter.seconds(until: now.adding(milliseconds: window), from: now) }
            }
            recent.append(now)
            tried[user] = recent
            return nil
        }
    }

    /// How many users are tracked.
    var trackedUsers: Int { tried.withLock { $0.count } }

    private static func seconds(until instant: Instant, from now: Instant) -> Int {
        max(1, Int((instant.milliseconds - now.milliseconds + 999) / 1000))
    }
}
