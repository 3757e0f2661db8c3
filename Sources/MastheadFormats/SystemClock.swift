public import Masthead
import Glibc

/// The system's clocks, read in one place for every module above the domain (which takes "now"
/// as a parameter and reads no clock).
public enum SystemClock {
    /// The current instant, from the real-time clock.
    public static func now() -> Instant {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Instant(milliseconds: Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000)
    }

    /// Seconds on the monotonic clock, for measuring how long something took (not a date).
    public static func seconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
