import Foundation
import Masthead
import MastheadFormats
import MastheadSQLite
import MastheadStorage
import MastheadTestSupport
import Testing

/// `masthead grants import FILE`: a publisher's grants file (CSV or JSON lines) stored in the
/// service's database, idempotent by grant id, every bad line reported with its line and field.
struct GrantsCommandTests {
    static let header = "grantId,userId,publications,access,start,end,source"

    /// Runs `masthead grants import FILE --database DB` with the example catalog.
    static func importing(_ file: URL, into database: String, _ extra: [String] = []) throws -> Tool.Outcome {
        try Tool.run(["grants", "import", file.path, "--catalog", "Catalog/the-monthly", "--database", database] + extra)
    }

    /// A folder with `lines` written to `name`, and the database path beside it.
    static func folder(_ name: String, _ lines: [String]) throws -> (folder: URL, file: URL, database: String) {
        let folder = try Tool.temporaryFolder()
        let file = folder.appendingPathComponent(name)
        try Data(lines.joined(separator: "\n").utf8).write(to: file)
        return (folder, file, folder.appendingPathComponent("masthead.sqlite").path)
    }

    static func grants(_ database: String, _ userId: String) throws -> [Grant] {
        try SQLiteStore(path: database, readOnly: true).grants(forUser: userId)
    }

    @Test func csv_storesEachRowsGrant_andTheSameFileTwiceChangesNothing() throws {
        let (folder, file, database) = try Self.folder("print.csv", [
            Self.header,
            "p-1,ana,the-monthly,archive,2020-01-01,2021-01-01,print",
            "p-2,bo,the-monthly,streaming,2020-03-01T12:00:00Z,,print",
        ])
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = try Self.importing(file, into: database)
        #expect(first.status == 0, "\(first.errors)")
        #expect(first.output == "grants import: 2 added, 0 changed, 0 unchanged, 0 revoked, 0 rejected in \(database)\n")
        let ana = try Self.grants(database, "ana")
        #expect(ana.map(\.grantId) == ["p-1"])
        #expect(ana.first?.scope == .span(publications: ["the-monthly"], access: .archive, window: nil))
        #expect(ana.first?.start == GrantDecoder.instant("2020-01-01"))
        // A date alone as the end includes that day, as a grant's JSON reads it.
        #expect(ana.first?.end == GrantDecoder.instant("2021-01-02"))
        #expect(try Self.grants(database, "bo").first?.end == nil)
        let second = try Self.importing(file, into: database)
        #expect(second.status == 0, "\(second.errors)")
        #expect(second.output == "grants import: 0 added, 0 changed, 2 unchanged, 0 revoked, 0 rejected in \(database)\n")
        #expect(try SQLiteStore(path: database, readOnly: true).database.scalar("SELECT count(*) FROM changes") == .integer(2))
    }

    @Test func jsonLines_storeSpansAndIssueGrants_withTheirUsers() throws {
        let (folder, file, database) = try Self.folder("grants.jsonl", [
            #"{"grantId": "c-1", "userId": "ana", "source": "comp", "publications": ["the-monthly"], "access": "streaming", "window": 2, "start": "2020-01-01"}"#,
            "",
            #"{"grantId": "m-1", "userId": "ana", "source": "makeGood", "publication": "the-monthly", "issues": ["2020-03"], "start": "2020-04-02T09:00:00Z"}"#,
        ])
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = try Self.importing(file, into: database)
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.hasPrefix("grants import: 2 added, 0 changed, 0 unchanged"))
        let grants = try Self.grants(database, "ana")
        #expect(grants.map(\.grantId) == ["c-1", "m-1"])
        #expect(grants.last?.scope == .issues(publication: "the-monthly", issueIds: ["2020-03"]))
    }

    @Test func badLines_reportedWithLineAndField_goodLinesStored_exitOne() throws {
        let (folder, file, database) = try Self.folder("print.csv", [
            Self.header,
            "p-1,ana,the-monthly,archive,2020-01-01,2021-01-01,print",
            "p-2,bo,the-monthly,archive,2020-13-01,,print",
            "p-3,cy,the-montly,archive,2020-01-01,,print",
            "p-4,dee,the-monthly,archive,2020-01-01,2019-01-01,print",
            "p-5,eve,the-monthly,archival,2020-01-01,,print",
            "p-6,fay,the-monthly,archive,2020-01-01,,print,extra",
            "licence:x,gus,the-monthly,archive,2020-01-01,,print",
            "p-1,hal,the-monthly,archive,2020-01-01,,print",
            "p-9,ivy,the-monthly,archive,2020-01-01,,print",
        ])
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = try Self.importing(file, into: database)
        #expect(run.status == 1)
        #expect(run.output == "grants import: 2 added, 0 changed, 0 unchanged, 0 revoked, 7 rejected in \(database)\n")
        let lines = run.errors.split(separator: "\n").map(String.init)
        #expect(lines.count == 7, "\(run.errors)")
        #expect(lines[0].hasPrefix("\(file.path):3: start: \"2020-13-01\" is not an RFC 3339 instant"))
        #expect(lines[1] == "\(file.path):4: publications[0]: unknown publication \"the-montly\", did you mean 'the-monthly'?")
        #expect(lines[2] == "\(file.path):5: end: must be after start")
        #expect(lines[3] == "\(file.path):6: access: \"archival\" is not archive or streaming")
        #expect(lines[4] == "\(file.path):7: line: has 8 field(s), the header names 7")
        #expect(lines[5].hasPrefix("\(file.path):8: grantId: \"licence:x\" starts with \"licence:\""))
        #expect(lines[6] == "\(file.path):9: grantId: grant p-1 belongs to another user")
        #expect(try Self.grants(database, "ana").map(\.grantId) == ["p-1"])
        #expect(try Self.grants(database, "ivy").map(\.grantId) == ["p-9"])
        #expect(try Self.grants(database, "hal").isEmpty)
    }

    @Test func quotedFields_holdCommasAndQuotes_andARecordSpanningLinesIsNumberedByItsFirst() throws {
        let (folder, file, database) = try Self.folder("print.csv", [
            "source,grantId,userId,publications,access,start,end,revokedAt",
            #""print","p,1","ana ""the reader""",the-monthly,archive,2020-01-01,,2020-06-01"#,
            "print,\"p-2\nwrapped\",bo,the-monthly,archive,2020-01-01,,",
            "print,p-4,dee,\"the-monthly\",archive,2020-01-01,,",
            #"print,p-3,"cy,the-monthly,archive,2020-01-01,,"#,
        ])
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = try Self.importing(file, into: database)
        #expect(run.status == 1)
        #expect(run.errors == """
            \(file.path):3: grantId: "p-2\\u000Awrapped" holds a control character
            \(file.path):6: column 3: a quoted field is not closed

            """)
        let ana = try Self.grants(database, "ana \"the reader\"")
        #expect(ana.map(\.grantId) == ["p,1"])
        #expect(ana.first?.revokedAt == GrantDecoder.instant("2020-06-01"))
        #expect(try Self.grants(database, "dee").map(\.grantId) == ["p-4"])
        #expect(try Self.grants(database, "bo").isEmpty)
    }

    @Test func nulAndInvalidUTF8_areBadLines_notACrash() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("print.csv")
        let database = folder.appendingPathComponent("masthead.sqlite").path
        var bytes = Array((Self.header + "\n").utf8)
        bytes += Array("p-1,ana,the-monthly,archive,2020-01-01,,print\n".utf8)
        bytes += Array("p-2,b".utf8) + [0] + Array("o,the-monthly,archive,2020-01-01,,print\n".utf8)
        bytes += Array("p-3,c".utf8) + [0xC3, 0x28] + Array(",the-monthly,archive,2020-01-01,,print\n".utf8)
        try Data(bytes).write(to: file)
        let run = try Self.importing(file, into: database)
        #expect(run.status == 1)
        #expect(run.errors == "\(file.path):3: line: holds a NUL byte (byte 6)\n\(file.path):4: line: is not valid UTF-8\n")
        #expect(try Self.grants(database, "ana").count == 1)
        let json = folder.appendingPathComponent("grants.jsonl")
        try Data(Array(#"{"grantId": "c-1", "userId": "a"#.utf8) + [0xFF] + Array(#"", "source": "comp"}"#.utf8)).write(to: json)
        let jsonRun = try Self.importing(json, into: database)
        #expect(jsonRun.status == 1)
        #expect(jsonRun.errors == "\(json.path):1: line: is not valid UTF-8\n")
    }

    /// A spreadsheet's CSV export starts with a byte order mark: it is not part of the header.
    @Test func csvWithAByteOrderMark_readsItsHeader() throws {
        let (folder, file, database) = try Self.folder("print.csv", ["\u{FEFF}" + Self.header, "p-1,ana,the-monthly,archive,2020-01-01,,print"])
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = try Self.importing(file, into: database)
        #expect(run.status == 0, "\(run.errors)")
        #expect(try Self.grants(database, "ana").map(\.grantId) == ["p-1"])
    }

    @Test func dryRun_countsWhatWouldChange_andWritesNothing() throws {
        let (folder, file, database) = try Self.folder("print.csv", [Self.header, "p-1,ana,the-monthly,archive,2020-01-01,2021-01-01,print"])
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try Self.importing(file, into: database).status == 0)
        try Data([Self.header, "p-1,ana,the-monthly,archive,2020-01-01,,print", "p-2,bo,the-monthly,archive,2020-01-01,,print"].joined(separator: "\n").utf8)
            .write(to: file)
        let dry = try Self.importing(file, into: database, ["--dry-run", "--revoke-missing", "print"])
        #expect(dry.status == 0, "\(dry.errors)")
        #expect(dry.output == "grants import: 1 added, 1 changed, 0 unchanged, 0 revoked, 0 rejected (dry run, nothing written)\n")
        #expect(try Self.grants(database, "ana").first?.end == GrantDecoder.instant("2021-01-02"))
        #expect(try Self.grants(database, "bo").isEmpty)
        try Data([Self.header, "p-2,bo,the-monthly,archive,2020-01-01,,print"].joined(separator: "\n").utf8).write(to: file)
        let dryRevoke = try Self.importing(file, into: database, ["--dry-run", "--revoke-missing", "print"])
        #expect(dryRevoke.output == "grants import: 1 added, 0 changed, 0 unchanged, 1 revoked, 0 rejected (dry run, nothing written)\n")
        #expect(try Self.grants(database, "ana").first?.revokedAt == nil)
        #expect(try SQLiteStore(path: database, readOnly: true).database.scalar("SELECT count(*) FROM changes") == .integer(1))
    }

    @Test func revokeMissing_revokesTheSourcesGrantsNotInTheFile_andIsRefusedAfterABadLine() throws {
        let (folder, file, database) = try Self.folder("print.csv", [
            Self.header, "p-1,ana,the-monthly,archive,2020-01-01,,print", "p-2,bo,the-monthly,archive,2020-01-01,,print",
            "c-1,cy,the-monthly,archive,2020-01-01,,comp",
        ])
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try Self.importing(file, into: database).status == 0)
        // The next print list dropped bo, and has a bad line: nothing is revoked.
        try Data([Self.header, "p-1,ana,the-monthly,archive,2020-01-01,,print", "p-3,dee,the-montly,archive,2020-01-01,,print"].joined(separator: "\n").utf8)
            .write(to: file)
        let refused = try Self.importing(file, into: database, ["--revoke-missing", "print"])
        #expect(refused.status == 1)
        #expect(refused.errors.hasSuffix("\(file.path): --revoke-missing print not applied: 1 line(s) rejected; nothing was revoked\n"))
        #expect(refused.output == "grants import: 0 added, 0 changed, 1 unchanged, 0 revoked, 1 rejected in \(database)\n")
        #expect(try Self.grants(database, "bo").first?.revokedAt == nil)
        // Fixed: bo's print grant is revoked, cy's comp grant is not.
        try Data([Self.header, "p-1,ana,the-monthly,archive,2020-01-01,,print"].joined(separator: "\n").utf8).write(to: file)
        let applied = try Self.importing(file, into: database, ["--revoke-missing", "print"])
        #expect(applied.status == 0, "\(applied.errors)")
        #expect(applied.output == "grants import: 0 added, 0 changed, 1 unchanged, 1 revoked, 0 rejected in \(database)\n")
        #expect(try Self.grants(database, "bo").first?.revokedAt != nil)
        #expect(try Self.grants(database, "ana").first?.revokedAt == nil)
        #expect(try Self.grants(database, "cy").first?.revokedAt == nil)
        let again = try Self.importing(file, into: database, ["--revoke-missing", "print"])
        #expect(again.output == "grants import: 0 added, 0 changed, 1 unchanged, 0 revoked, 0 rejected in \(database)\n")
        // An empty export (the header alone) revokes nothing.
        try Data(Self.header.utf8).write(to: file)
        let empty = try Self.importing(file, into: database, ["--revoke-missing", "print"])
        #expect(empty.status == 1)
        #expect(empty.errors == "\(file.path): --revoke-missing print not applied: the file holds no grant; nothing was revoked\n")
        #expect(try Self.grants(database, "ana").first?.revokedAt == nil)
    }

    @Test func badHeader_storesNothing_namingTheColumn() throws {
        let (folder, file, database) = try Self.folder("print.csv", [
            "grantId,userId,publication,access,start,end,source", "p-1,ana,the-monthly,archive,2020-01-01,,print",
        ])
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = try Self.importing(file, into: database)
        #expect(run.status == 1)
        #expect(run.errors == "masthead: \(file.path):1: header: unknown column \"publication\"; did you mean \"publications\"?; nothing was stored\n")
        #expect(try Self.grants(database, "ana").isEmpty)
    }

    @Test func unknownAction_isAUsageError() throws {
        let run = try Tool.run(["grants", "export", "x.csv", "--catalog", "Catalog/the-monthly", "--database", "x.sqlite"])
        #expect(run.status == 64)
        #expect(run.errors.contains("grants: unknown action 'export'"))
        let missing = try Tool.run(["grants", "import", "--catalog", "Catalog/the-monthly", "--database", "x.sqlite"])
        #expect(missing.status == 64)
        #expect(missing.errors == "masthead: grants: missing FILE (see 'masthead grants --help')\n")
    }

    /// `audit --database` reads the grants stored: a reader known only from a print grant is
    /// audited, active, from the database.
    @Test func auditDatabase_includesImportedGrants() throws {
        let (folder, file, database) = try Self.folder("print.csv", [Self.header, "p-1,pat,the-monthly,archive,2020-01-01,2021-01-01,print"])
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try Self.importing(file, into: database).status == 0)
        let audit = try Tool.run(["audit", "--catalog", "Catalog/the-monthly", "--at", "2020-07-02T00:00:00Z", "--database", database])
        #expect(audit.status == 0, "\(audit.errors)")
        let lines = audit.output.split(separator: "\n")
        #expect(lines.count == 1)
        #expect(lines.first?.contains("\"pat\"") == true)
        #expect(lines.first?.contains("\"active\"") == true)
    }
}

/// `masthead grants import` into PostgreSQL: the same outcomes as into SQLite, dry runs rolled back.
@Suite(.enabled(if: !TestPostgreSQL.isSkipped, "MASTHEAD_SKIP_POSTGRES=1"))
struct PostgreSQLGrantsCommandTests {
    @Test func importIntoPostgreSQL_storesOnce_dryRunWritesNothing_andRevokesMissing() throws {
        let (folder, file, _) = try GrantsCommandTests.folder("print.csv", [
            GrantsCommandTests.header, "p-1,ana,the-monthly,archive,2020-01-01,,print", "p-2,bo,the-monthly,archive,2020-01-01,,print",
        ])
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = try TestPostgreSQL.freshDatabase()
        let dry = try GrantsCommandTests.importing(file, into: url, ["--dry-run"])
        #expect(dry.output == "grants import: 2 added, 0 changed, 0 unchanged, 0 revoked, 0 rejected (dry run, nothing written)\n", "\(dry.errors)")
        #expect(try PostgreSQLStore(url: url, readOnly: true).grants(forUser: "ana").isEmpty)
        #expect(try GrantsCommandTests.importing(file, into: url).status == 0)
        let again = try GrantsCommandTests.importing(file, into: url)
        #expect(again.output.hasPrefix("grants import: 0 added, 0 changed, 2 unchanged, 0 revoked, 0 rejected in "), "\(again.errors)")
        try Data([GrantsCommandTests.header, "p-1,ana,the-monthly,archive,2020-01-01,,print"].joined(separator: "\n").utf8).write(to: file)
        let revoked = try GrantsCommandTests.importing(file, into: url, ["--revoke-missing", "print"])
        #expect(revoked.output.hasPrefix("grants import: 0 added, 0 changed, 1 unchanged, 1 revoked, 0 rejected in "), "\(revoked.errors)")
        let store = try PostgreSQLStore(url: url, readOnly: true)
        #expect(try store.grants(forUser: "bo").first?.revokedAt != nil)
        #expect(try store.history(forUser: "ana").grants.map(\.grantId) == ["p-1"])
    }
}
