import Glibc

/// The system's clocks, read in one place for every module (the domain takes "now" as a parameter
/// and reads no clock).
public enum SystemClock {
    /// Milliseconds since 1970-01-01T00:00:00Z on the real-time clock.
    public static func epochMilliseconds() -> Int64 {
        let time = read(CLOCK_REALTIME)
        return Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000
    }

    /// Milliseconds on the monotonic clock, for deadlines and timeouts (not a date).
    public static func monotonicMilliseconds() -> Int64 {
        let time = read(CLOCK_MONOTONIC)
        return Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000
    }

    /// Seconds on the monotonic clock, for measuring how long something took (not a date).
    public static func seconds() -> Double {
        let time = read(CLOCK_MONOTONIC)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    private static func read(_ clock: clockid_t) -> timespec {
        var time = timespec()
        clock_gettime(clock, &time)
        return time
    }
}
