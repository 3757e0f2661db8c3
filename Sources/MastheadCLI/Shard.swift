/// One part of an audit split across machines by user: `--shard K/N` keeps the users whose id
/// hashes to part K of N, in the receipts (or database) and in the grants alike.
///
/// The hash is 64-bit FNV-1a over the UTF-8 bytes of `user_id`; a user belongs to part
/// `hash % N + 1`. Any tool that splits files by that rule splits them as the audit would.
struct Shard: Equatable, Sendable {
    /// The part, from 1.
    let index: Int
    /// How many parts there are.
    let count: Int

    /// Reads `K/N` (1 ≤ K ≤ N).
    init(parsing text: String, command: String) throws(CLIError) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]), count >= 1, (1...count).contains(index) else {
            throw CLIError.usage("\(command): --shard must be K/N with 1 ≤ K ≤ N, such as 1/4, not '\(text)'")
        }
        self.index = index
        self.count = count
    }

    /// Whether the user belongs to this part.
    func contains(_ userId: String) -> Bool { Int(Self.hash(userId) % UInt64(count)) == index - 1 }

    /// 64-bit FNV-1a of the id's UTF-8 bytes.
    static func hash(_ userId: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in userId.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        return hash
    }

    /// `K/N`, as given.
    var description: String { "\(index)/\(count)" }
}
