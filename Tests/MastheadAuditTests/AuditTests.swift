import Foundation
import Masthead
import MastheadAudit
import Testing

/// An audit run in-process: what reaches the sink, in which order, and what the result counts.
struct AuditTests {
    static let at = [AuditFixture.instant("2020-07-02T00:00:00Z")]
    static let users = [("alice", "table-6-1"), ("carol", "table-6-2"), ("frank", "single-issue"), ("gina", "refund")]

    static func receipts(_ fixture: AuditFixture, _ users: [(String, String)] = users) throws -> String {
        try fixture.file("in.jsonl", try users.map { try AuditFixture.line($0.0, $0.1) })
    }

    @Test func receipts_writtenInInputOrder_badLinesRejectedWithFileAndLine() throws {
        let fixture = try AuditFixture()
        defer { fixture.remove() }
        let path = try fixture.file("in.jsonl", [
            try AuditFixture.line("alice", "table-6-1"), "{not json", "", #"{"user_id": "bob"}"#, try AuditFixture.line("carol", "table-6-2"),
        ])
        let (result, sink) = try AuditFixture.run(AuditConfiguration(catalog: AuditFixture.catalog, source: .receipts(path: path), instants: Self.at))
        #expect(sink.lines.map { $0.split(separator: "\"")[3] } == ["alice", "carol"])
        #expect(sink.rejected.count == 2)
        #expect(sink.rejected[0].hasPrefix("\(path):2: invalid JSON: "))
        #expect(sink.rejected[1] == "\(path):4: missing field $.receipt (line 1)")
        #expect((result.summary.lines, result.summary.users, result.summary.rejectedLines) == (4, 2, 2))
        #expect(result.summary.byInstant[0][.active] == 2)
        #expect(result.grantMessages.isEmpty)
    }

    /// The same users give the same bytes from the database as from their receipts in user id order.
    @Test func database_equalsReceipts() throws {
        let fixture = try AuditFixture()
        defer { fixture.remove() }
        let database = try fixture.database(Self.users)
        let fromDatabase = try AuditFixture.run(AuditConfiguration(catalog: AuditFixture.catalog, source: .database(path: database), instants: Self.at))
        let fromReceipts = try AuditFixture.run(
            AuditConfiguration(catalog: AuditFixture.catalog, source: .receipts(path: try Self.receipts(fixture)), instants: Self.at, format: .csv))
        let csvFromDatabase = try AuditFixture.run(
            AuditConfiguration(catalog: AuditFixture.catalog, source: .database(path: database), instants: Self.at, format: .csv))
        #expect(fromDatabase.sink.lines.count == 4)
        #expect(csvFromDatabase.sink.bytes == fromReceipts.sink.bytes)
        #expect(fromDatabase.result.summary.users == 4)
        #expect(fromDatabase.result.summary.byInstant == fromReceipts.result.summary.byInstant)
    }

    /// The parts of a sharded audit hold every line of the whole once, and their counts add up to its counts.
    @Test(arguments: [false, true])
    func shards_addUpToTheWhole(fromDatabase: Bool) throws {
        let fixture = try AuditFixture()
        defer { fixture.remove() }
        // Each user a receipt of their own (one subscription is linked to one user), named after it: 3, 2 and 2 users a part.
        let users = ["grace", "refund", "single-issue", "stacked-passes", "table-6-1", "table-6-2", "upgrade"].map { ($0, $0) }
        let source: AuditConfiguration.Source = fromDatabase ? .database(path: try fixture.database(users)) : .receipts(path: try Self.receipts(fixture, users))
        func audit(_ shard: Shard?) throws -> (result: AuditResult, sink: CollectingSink) {
            try AuditFixture.run(AuditConfiguration(catalog: AuditFixture.catalog, source: source, instants: Self.at, shard: shard))
        }
        let whole = try audit(nil)
        let parts = try (1...3).map { try audit(Shard(parsing: "\($0)/3")) }
        #expect(parts.allSatisfy { !$0.sink.lines.isEmpty })
        #expect(parts.flatMap(\.sink.lines).sorted() == whole.sink.lines.sorted())
        let sum = parts.dropFirst().reduce(parts[0].result.summary) { $0.adding($1.result.summary) }
        #expect((sum.users, sum.outputLines, sum.byInstant, sum.byProduct) == (whole.result.summary.users, whole.result.summary.outputLines,
                                                                                whole.result.summary.byInstant, whole.result.summary.byProduct))
        #expect(parts.map(\.result.summary.users) == [3, 2, 2])
        for part in parts { #expect(part.result.summary.users + part.result.summary.otherShardLines == 7) }
    }

    /// Progress counts the bytes of a receipts file and the users of a database, and is given only when asked for.
    @Test func progress_bytesOfTheFile_usersOfTheDatabase_onlyWhenShown() throws {
        let fixture = try AuditFixture()
        defer { fixture.remove() }
        let receipts = try Self.receipts(fixture)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: receipts)[.size] as? Int)
        let file = try AuditFixture.run(AuditConfiguration(catalog: AuditFixture.catalog, source: .receipts(path: receipts), instants: Self.at), progress: true)
        #expect(file.sink.positions.last == AuditPosition(unit: .bytes, users: 4, done: size, total: size))
        let database = try AuditFixture.run(
            AuditConfiguration(catalog: AuditFixture.catalog, source: .database(path: try fixture.database(Self.users)), instants: Self.at), progress: true)
        #expect(database.sink.positions.last == AuditPosition(unit: .users, users: 4, done: 4, total: 4))
        let quiet = try AuditFixture.run(AuditConfiguration(catalog: AuditFixture.catalog, source: .receipts(path: receipts), instants: Self.at))
        #expect(quiet.sink.positions.isEmpty)
    }

    /// What the sink throws stops the audit and comes back as the audit's error.
    @Test func failingSink_stopsTheAudit_withWhatItThrew() throws {
        struct Full: Error {}
        final class FullSink: AuditSink {
            var writes = 0
            var showsProgress: Bool { false }
            func write(_ bytes: [UInt8]) throws {
                writes += 1
                throw Full()
            }
            func reject(_ message: String) throws {}
            func progress(_ position: AuditPosition) throws {}
        }
        let fixture = try AuditFixture()
        defer { fixture.remove() }
        let audit = try Audit(AuditConfiguration(catalog: AuditFixture.catalog, source: .receipts(path: try Self.receipts(fixture)), instants: Self.at))
        let sink = FullSink()
        let error = #expect(throws: AuditError.self) { try audit.run(into: sink) }
        guard case .sink(let failure)? = error else { return #expect(Bool(false), "\(String(describing: error))") }
        #expect(failure is Full)
        #expect(sink.writes == 1)
    }

    /// An unreadable grants line stops the audit before anything is decided, naming the file and line.
    @Test func badGrantsLine_isAnError_beforeAnythingIsDecided() throws {
        let fixture = try AuditFixture()
        defer { fixture.remove() }
        let grants = try fixture.file("grants.csv", ["user_id,publication,issue_id", "alice,the-monthly,2020-03", "alice,\"the-monthly\",2020-04"])
        let configuration = AuditConfiguration(
            catalog: AuditFixture.catalog, source: .receipts(path: try Self.receipts(fixture)), instants: Self.at, grantsPath: grants)
        let error = #expect(throws: AuditError.self) { try Audit(configuration) }
        guard case .invalidGrants(let path, let line, let reason)? = error else { return #expect(Bool(false), "\(String(describing: error))") }
        #expect((path, line, reason) == (grants, 3, "expected user_id,publication,issue_id[,granted_at] (no quotes)"))
    }

    /// Grants the audit cannot place come back as messages: unknown issues by line, users without a receipt line in one.
    @Test func unplacedGrants_areMessages() throws {
        let fixture = try AuditFixture()
        defer { fixture.remove() }
        let grants = try fixture.file("grants.csv", [
            "alice,the-monthly,2020-03", "alice,the-monthly,1999-01", "zoe,the-monthly,2020-03", "yann,the-monthly,2020-04", "zoe,the-monthly,2020-04",
        ])
        let (result, _) = try AuditFixture.run(AuditConfiguration(
            catalog: AuditFixture.catalog, source: .receipts(path: try Self.receipts(fixture)), instants: Self.at, grantsPath: grants))
        #expect(result.grantMessages == [
            "\(grants):2: publication the-monthly has no issue 1999-01",
            "\(grants): 3 grant(s) of 2 user(s) without a receipt line, not reconciled (first: line 3, user zoe)",
        ])
        #expect((result.summary.unknownGrantIssues, result.summary.unknownGrantUsers) == (1, 3))
    }

    @Test func missingDatabase_cannotBeRead_andIsNotCreated() throws {
        let fixture = try AuditFixture()
        defer { fixture.remove() }
        let path = fixture.folder.appendingPathComponent("nothing.sqlite").path
        let error = #expect(throws: AuditError.self) {
            try Audit(AuditConfiguration(catalog: AuditFixture.catalog, source: .database(path: path), instants: Self.at))
        }
        guard case .cannotRead(let failed, let reason)? = error else { return #expect(Bool(false), "\(String(describing: error))") }
        #expect((failed, reason) == (path, "No such file or directory"))
        #expect(!FileManager.default.fileExists(atPath: path))
    }
}
