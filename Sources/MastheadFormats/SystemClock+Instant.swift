public import Masthead
public import MastheadClock

extension SystemClock {
    /// The current instant, from the real-time clock.
    public static func now() -> Instant { Instant(milliseconds: epochMilliseconds()) }
}
