import MastheadAudit
import Testing

/// `--shard K/N`: which texts name a part, and which users a part holds.
struct ShardTests {
    @Test(arguments: ["1/1", "2/4", "4/4"])
    func parsing_acceptsKOfN(text: String) throws {
        let shard = try #require(Shard(parsing: text))
        #expect(shard.description == text)
    }

    @Test(arguments: ["0/2", "3/2", "1/0", "1", "1/2/3", "a/b", "", "-1/2"])
    func parsing_refusesAnythingElse(text: String) {
        #expect(Shard(parsing: text) == nil)
    }

    /// 64-bit FNV-1a: the offset basis for no bytes, the published value for "a".
    @Test func hash_isFNV1a() {
        #expect(Shard.hash("") == 0xcbf2_9ce4_8422_2325)
        #expect(Shard.hash("a") == 0xaf63_dc4c_8601_ec8c)
    }

    @Test func everyUser_isInExactlyOnePart() throws {
        let parts = try (1...3).map { try #require(Shard(parsing: "\($0)/3")) }
        for user in (0..<300).map({ "user-\($0)" }) {
            #expect(parts.filter { $0.contains(user) }.count == 1)
            #expect(parts[Int(Shard.hash(user) % 3)].contains(user))
        }
    }
}
