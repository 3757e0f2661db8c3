/// How many rejected notifications a store keeps of each ``RejectedNotification/Kind``: the
/// newest, within both a row and a byte bound (the bytes of bodies and reasons), so that a sender
/// of bad signatures cannot fill the disk, nor a sender of junk push out the forgeries. The newest
/// one of each kind is always kept.
public struct RejectedNotificationRetention: Hashable, Sendable {
    /// The most rows kept.
    public var rows: Int
    /// The most bytes kept (bodies and reasons), all rows of a kind together.
    public var bytes: Int

    /// Creates a bound.
    public init(rows: Int, bytes: Int) {
        self.rows = rows
        self.bytes = bytes
    }

    /// The newest 10,000 of each kind, within 32 MiB of bodies and reasons (at least 15 at the
    /// service's 2 MiB body limit).
    public static let standard = RejectedNotificationRetention(rows: 10_000, bytes: 32 << 20)
}
