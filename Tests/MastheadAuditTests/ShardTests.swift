import Foundation
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

    /// A byte-order mark at the start of any line, not only the file's first, is skipped: the
    /// line is its user's and goes to that user's part (what the Spark job's partitioning follows).
    @Test func lineStartingWithByteOrderMark_isItsUsersOnAnyLine_inThatUsersPart() throws {
        let fixture = try AuditFixture()
        defer { fixture.remove() }
        let path = try fixture.file("in.jsonl", [try AuditFixture.line("alice", "table-6-1"), "\u{FEFF}" + (try AuditFixture.line("bob", "table-6-2"))])
        let whole = try AuditFixture.run(AuditConfiguration(catalog: AuditFixture.catalog, source: .receipts(path: path), instants: AuditTests.at))
        #expect(whole.sink.rejected.isEmpty)
        #expect(whole.sink.lines.map { $0.split(separator: "\"")[3] } == ["alice", "bob"])
        let part = try #require(Shard(parsing: "\(Shard.hash("bob") % 3 + 1)/3"))
        let sharded = try AuditFixture.run(
            AuditConfiguration(catalog: AuditFixture.catalog, source: .receipts(path: path), instants: AuditTests.at, shard: part))
        #expect(sharded.sink.lines.contains { $0.hasPrefix(#"{"user_id":"bob""#) })
    }

    @Test func everyUser_isInExactlyOnePart() throws {
        let parts = try (1...3).map { try #require(Shard(parsing: "\($0)/3")) }
        for user in (0..<300).map({ "user-\($0)" }) {
            #expect(parts.filter { $0.contains(user) }.count == 1)
            #expect(parts[Int(Shard.hash(user) % 3)].contains(user))
        }
    }
}
