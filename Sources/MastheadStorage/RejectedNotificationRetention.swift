/// How many rejected notifications a store keeps: the newest, within both a row and a byte bound,
/// so that a sender of bad signatures cannot fill the disk. The newest one is always kept.
public struct RejectedNotificationRetention: Hashable, Sendable {
    /// The most rows kept.
    public var rows: Int
    /// The most body bytes kept, all rows together.
    public var bytes: Int

    /// Creates a bound.
    public init(rows: Int, bytes: Int) {
        self.rows = rows
        self.bytes = bytes
    }

    /// The newest 10,000, within 32 MiB of bodies (at least 16 at the service's 2 MiB body limit).
    public static let standard = RejectedNotificationRetention(rows: 10_000, bytes: 32 << 20)
}
