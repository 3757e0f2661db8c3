/// One part of an audit split across machines by user: `--shard K/N` keeps the users whose id
/// hashes to part K of N, in the receipts (or database) and in the grants alike.
///
/// The hash is 64-bit FNV-1a over the UTF-8 bytes of `user_id`; a user belongs to part
/// `hash % N + 1`. Any tool that splits files by that rule splits them as the audit would.
public struct Shard: Equatable, Sendable, CustomStringConvertible {
    /// The part, from 1.
    public let index: Int
    /// How many parts there are.
    public let count: Int

    /// Reads `K/N` (1 ≤ K ≤ N); nil for anything else.
    public init?(parsing text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]), count >= 1, (1...count).contains(index) else { return nil }
        self.index = index
        self.count = count
    }

    /// Whether the user belongs to this part.
    public func contains(_ userId: String) -> Bool { Int(Self.hash(userId) % UInt64(count)) == index - 1 }

    /// 64-bit FNV-1a of the id's UTF-8 bytes.
    public static func hash(_ userId: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in userId.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        return hash
    }

    /// `K/N`, as given.
    public var description: String { "\(index)/\(count)" }
}
