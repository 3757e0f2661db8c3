import Foundation
import Glibc
import MastheadSQLite
import MastheadStorage
import MastheadTestSupport
import Testing

/// `masthead check` and `masthead timeline` with `--database DB --user ID`: a reader the service
/// stores, answered and drawn exactly as the service answers and draws them.
struct StoredReaderTests {
    static let api = ["Authorization": "Bearer api-token"]
    static let admin = ["Authorization": "Bearer admin-token"]
    /// Before the print grant bridges the lapse, inside it, and after the resubscription.
    static let instants = ["2020-04-01T00:00:00Z", "2020-05-10T00:00:00Z", "2020-07-02T00:00:00Z"]
    /// The same name twice: é precomposed (NFC), and e + U+0301 COMBINING ACUTE ACCENT (NFD).
    static let nfc = "jos\u{E9}"
    static let nfd = "jose\u{301}"

    /// A running service on a fresh database of `backend` holding, through its API: alice's
    /// Table 6-1 receipt and a print grant bridging her lapse, an issue published through the API,
    /// and two users whose ids differ only in their normalization, with different receipts (each
    /// subscription linked to one user).
    static func populatedService(_ backend: StoreBackend) throws -> (server: ServerProcess, client: TestClient, database: String) {
        let database = try backend.freshDatabase()
        let server = try ServerProcess(database: database)
        let client = try TestClient(port: server.port)
        for (user, receipt) in [("alice", "table-6-1"), (nfc, "refund"), (nfd, "table-6-2")] {
            let body = Array(try Data(contentsOf: Tool.root.appendingPathComponent("Catalog/the-monthly/receipts/\(receipt).json")))
            #expect(client.request("POST", "/v1/users/\(path(user))/receipts", headers: api, body: body)?.status == 200)
        }
        let grant = #"{"source": "print", "publications": ["the-monthly"], "access": "archive", "start": "2020-04-20", "end": "2020-06-17"}"#
        #expect(client.request("PUT", "/v1/users/alice/grants/g-1", headers: admin, body: Array(grant.utf8))?.status == 201)
        let issue = #"{"title": "June extra", "published": "2020-06-20T00:00:00Z"}"#
        #expect(client.request("PUT", "/v1/publications/the-monthly/issues/2020-06-extra", headers: admin, body: Array(issue.utf8))?.status == 200)
        return (server, client, database)
    }

    /// A user id as a path segment: every byte outside ASCII letters and digits percent-encoded.
    static func path(_ userId: String) -> String {
        userId.utf8.map { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                ? String(UnicodeScalar(byte)) : String(format: "%%%02X", byte)
        }.joined()
    }

    static func check(_ database: String, _ user: String, at: String, _ extra: [String] = []) throws -> Tool.Outcome {
        try Tool.run(["check", "--catalog", "Catalog/the-monthly", "--database", database, "--user", user, "--at", at] + extra)
    }

    /// The service's entitlement JSON and `check --format json` are the same bytes (the CLI adds
    /// a newline), issue published through the API and grant included; the text report has the
    /// same status, periods and decisions; read while the service runs.
    @Test(arguments: StoreBackend.tested) func check_fromDatabase_answersAsTheService(backend: StoreBackend) throws {
        let (server, client, database) = try Self.populatedService(backend)
        defer { _ = server.stop(signal: SIGTERM) }
        for at in Self.instants {
            let served = try #require(client.request("GET", "/v1/users/alice/entitlements?at=\(at)", headers: Self.api))
            #expect(served.status == 200)
            #expect(served.body.contains(#""id":"2020-06-extra""#))
            if at == Self.instants.last { #expect(served.body.contains(#""kind":"grant""#), "\(served.body)") }
            let json = try Self.check(database, "alice", at: at, ["--format", "json"])
            #expect(json.status == 0, "\(json.errors)")
            #expect(json.output == served.body + "\n")
            let text = try Self.check(database, "alice", at: at)
            #expect(text.status == 0, "\(text.errors)")
            #expect(try Self.decisions(text: text.output) == Self.decisions(json: served.body))
        }
    }

    /// The service's picture and `timeline --database --user` are the same bytes.
    @Test(arguments: StoreBackend.tested) func timeline_fromDatabase_drawsTheServicePicture(backend: StoreBackend) throws {
        let (server, client, database) = try Self.populatedService(backend)
        defer { _ = server.stop(signal: SIGTERM) }
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("alice.svg")
        for at in Self.instants {
            let served = try #require(client.request("GET", "/v1/users/alice/timeline.svg?at=\(at)", headers: Self.admin))
            #expect(served.status == 200)
            let run = try Tool.run([
                "timeline", "--catalog", "Catalog/the-monthly", "--database", database, "--user", "alice", "--at", at, "--output", output.path,
            ])
            #expect(run.status == 0, "\(run.errors)")
            #expect(try String(contentsOf: output, encoding: .utf8) == served.body)
        }
    }

    /// Two ids that differ only in their Unicode normalization are two users: each is answered with
    /// their own history, and a spelling the database does not hold is an unknown user.
    @Test(arguments: StoreBackend.tested) func userIds_areTheirExactBytes(backend: StoreBackend) throws {
        let (server, client, database) = try Self.populatedService(backend)
        defer { _ = server.stop(signal: SIGTERM) }
        let at = "2020-07-02T00:00:00Z"
        var answers: [String] = []
        for user in [Self.nfc, Self.nfd] {
            let served = try #require(client.request("GET", "/v1/users/\(Self.path(user))/entitlements?at=\(at)", headers: Self.api))
            let run = try Self.check(database, user, at: at, ["--format", "json"])
            #expect(run.status == 0, "\(run.errors)")
            #expect(run.output == served.body + "\n")
            answers.append(run.output)
        }
        #expect(answers[0] != answers[1])
        let composed = "ren\u{E9}e"
        let receipt = Array(try Data(contentsOf: Tool.root.appendingPathComponent("Catalog/the-monthly/receipts/single-issue.json")))
        #expect(client.request("POST", "/v1/users/\(Self.path(composed))/receipts", headers: Self.api, body: receipt)?.status == 200)
        let decomposed = try Self.check(database, "rene\u{301}e", at: at)
        #expect(decomposed.status == 64)
        #expect(decomposed.errors.contains("check: no user 'rene\u{301}e'"), "\(decomposed.errors)")
        #expect(try Self.check(database, composed, at: at).status == 0)
    }

    /// A user the database does not hold: exit 64 (as an unknown publication), nothing printed.
    @Test func unknownUser_exits64_namingTheUserAndTheDatabase() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try AuditDatabaseTests.database(in: folder, users: [("alice", "table-6-1")])
        let run = try Self.check(path, "bob", at: "2020-07-02T00:00:00Z")
        #expect(run.status == 64)
        #expect(run.output == "")
        #expect(run.errors == "masthead: check: no user 'bob' in \(path) (a user id is matched by its exact bytes)\n")
        let svg = folder.appendingPathComponent("bob.svg")
        let drawn = try Tool.run(["timeline", "--catalog", "Catalog/the-monthly", "--database", path, "--user", "bob", "--output", svg.path])
        #expect(drawn.status == 64)
        #expect(drawn.errors.contains("timeline: no user 'bob'"), "\(drawn.errors)")
        #expect(!FileManager.default.fileExists(atPath: svg.path))
    }

    /// --receipt or --user (with --database), exactly one; --user and --database each need the other.
    @Test func receiptOrStoredUser_exactlyOne_eachErrorNamingTheOptions() throws {
        let receipt = ["--receipt", "Catalog/the-monthly/receipts/table-6-1.json"]
        let cases: [([String], String)] = [
            (["check"] + receipt + ["--database", "x.sqlite", "--user", "alice"], "check: give --receipt or --user, not both"),
            (["check"], "check: missing --receipt FILE or --user ID"),
            (["check", "--user", "alice"], "check: --user ID names a user of the service's database: it needs --database FILE|URL"),
            (["check", "--database", "x.sqlite"], "check: missing --receipt FILE or --user ID"),
            (["check"] + receipt + ["--database", "x.sqlite"], "check: give --receipt or --database, not both"),
            (["timeline", "--output", "-"] + receipt + ["--database", "x.sqlite", "--user", "alice"], "timeline: give --receipt or --database, not both"),
            (["timeline", "--output", "-", "--database", "x.sqlite"], "timeline: --database needs --user ID, the stored user to answer for"),
            (["timeline", "--output", "-", "--user", "alice"], "timeline: missing --receipt FILE or --database FILE|URL"),
        ]
        for (arguments, message) in cases {
            let run = try Tool.run([arguments[0], "--catalog", "Catalog/the-monthly"] + arguments.dropFirst())
            #expect(run.status == 64, "\(arguments)")
            #expect(run.errors.hasPrefix("masthead: " + message), "\(arguments): \(run.errors)")
        }
        #expect(!FileManager.default.fileExists(atPath: Tool.root.appendingPathComponent("x.sqlite").path))
    }

    /// A missing database file: exit 66 naming it, and no file is created.
    @Test func missingDatabase_exits66_andCreatesNothing() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("nothing.sqlite").path
        let checked = try Self.check(path, "alice", at: "2020-07-02T00:00:00Z")
        #expect(checked.status == 66)
        #expect(checked.errors.hasPrefix("masthead: cannot read \(path): No such file or directory"), "\(checked.errors)")
        let drawn = try Tool.run(["timeline", "--catalog", "Catalog/the-monthly", "--database", path, "--user", "alice", "--output", "-"])
        #expect(drawn.status == 66)
        #expect(drawn.output == "")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }

    /// A database whose schema lacks a migration is refused (exit 66, saying how to bring it up
    /// to date) and not migrated; a database that is not the service's is refused too.
    @Test(arguments: StoreBackend.tested) func olderSchema_isRefused_andNotMigrated(backend: StoreBackend) throws {
        let database = try backend.freshDatabase()
        defer { if backend == .sqlite { try? FileManager.default.removeItem(atPath: database) } }
        // Another program's SQLite file; the PostgreSQL database is new and empty.
        if backend == .sqlite { try Database(path: database).execute("CREATE TABLE notes (text TEXT)") }
        let empty = try Self.check(database, "alice", at: "2020-07-02T00:00:00Z")
        #expect(empty.status == 66)
        #expect(empty.errors.contains("it holds no Masthead schema"), "\(empty.errors)")
        // Opened for writing, the store applies every migration; the newest is then forgotten.
        let known: Int
        switch backend {
        case .sqlite:
            let store = try SQLiteStore(path: database)
            known = try store.schemaVersion().known
            try store.run("DELETE FROM migrations WHERE version = \(known)", [])
        case .postgreSQL:
            let store = try PostgreSQLStore(url: database)
            known = try store.schemaVersion().known
            try store.run("DELETE FROM migrations WHERE version = \(known)", [])
        }
        let run = try Self.check(database, "alice", at: "2020-07-02T00:00:00Z")
        #expect(run.status == 66)
        #expect(run.output == "")
        #expect(run.errors.contains("its schema has \(known - 1) of the \(known) migrations this masthead reads"), "\(run.errors)")
        #expect(run.errors.contains("start this version's 'masthead serve' on it once"))
        let applied = try backend == .sqlite
            ? SQLiteStore(path: database, readOnly: true).schemaVersion().applied : PostgreSQLStore(url: database, readOnly: true).schemaVersion().applied
        #expect(applied == known - 1)
    }

    /// A PostgreSQL server that cannot be reached: exit 66, the URL named without its password.
    @Test func unreachablePostgreSQL_exits66_namedWithoutItsPassword() throws {
        let run = try Self.check("postgresql://ana:s3cret@%2Fnonexistent:5999/masthead", "alice", at: "2020-07-02T00:00:00Z")
        #expect(run.status == 66)
        #expect(run.errors.hasPrefix("masthead: cannot read postgresql://ana@%2Fnonexistent:5999/masthead: "), "\(run.errors)")
        #expect(!run.errors.contains("s3cret"))
    }

    /// Per publication: the status's state, the periods (number, access, start) and the decisions
    /// (issue id, readable), from the service's entitlement JSON.
    static func decisions(json: String) throws -> [Decisions] {
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let publications = try #require(document["publications"] as? [[String: Any]])
        return try publications.map { publication in
            let status = try #require(publication["status"] as? [String: Any])
            let periods = try #require(publication["periods"] as? [[String: Any]])
            let issues = try #require(publication["issues"] as? [[String: Any]])
            return Decisions(
                publication: try #require(publication["publication"] as? String),
                state: try #require(status["state"] as? String),
                periods: try periods.map { period in
                    let start = try #require(period["start"] as? String)
                    // 2020-02-20T12:00:00Z as the text writes it: 2020-02-20 12:00.
                    return "#\(try #require(period["period"] as? Int)) \(try #require(period["access"] as? String)) "
                        + start.prefix(10) + " " + start.dropFirst(11).prefix(5)
                },
                issues: try issues.map { issue in "\(try #require(issue["id"] as? String)) \(try #require(issue["readable"] as? Bool) ? "yes" : "no")" })
        }
    }

    /// The same, from `check`'s text report.
    static func decisions(text: String) -> [Decisions] {
        var result: [Decisions] = []
        for line in text.split(separator: "\n") {
            let words = line.split(separator: " ").map(String.init)
            if !line.hasPrefix(" "), line.hasSuffix(")"), let open = line.lastIndex(of: "(") {
                result.append(Decisions(publication: String(line[line.index(after: open)...].dropLast()), state: "", periods: [], issues: []))
            } else if line.hasPrefix("  Status   "), let state = words[1].split(separator: ",").first {
                result[result.count - 1].state = String(state)
            } else if line.hasPrefix("  Periods  #") || line.hasPrefix("           #"), let number = words.firstIndex(where: { $0.hasPrefix("#") }) {
                result[result.count - 1].periods.append(words[number...].prefix(4).joined(separator: " "))
            } else if line.hasPrefix("    "), !line.hasPrefix("     "), words.count >= 4 {
                // An issue: id, publish date and time, yes or no, the reasons.
                result[result.count - 1].issues.append("\(words[0]) \(words[3])")
            }
        }
        return result
    }

    struct Decisions: Equatable {
        var publication: String
        var state: String
        var periods: [String]
        var issues: [String]
    }
}
