import Foundation
import Glibc
import MastheadSQLite
import MastheadTestSupport
import Testing

/// `masthead serve` started and stopped as an operator would: what a clean stop leaves on disk,
/// a port already taken, the catalog's app, problems reported at once, file modes, the access log.
struct ServeLifecycleTests {
    static let api = ["Authorization": "Bearer api-token"]

    static func table61() throws -> [UInt8] {
        [UInt8](try Data(contentsOf: Tool.root.appendingPathComponent("Catalog/the-monthly/receipts/table-6-1.json")))
    }

    /// "Stop, copy the file": after SIGTERM the `.sqlite` file alone, copied without its `-wal`,
    /// holds what was acknowledged.
    @Test func sigterm_checkpointsTheLog_soACopyOfTheDatabaseFileAloneHoldsTheData() throws {
        let database = ServeCommandTests.temporaryDatabase()
        let copy = ServeCommandTests.temporaryDatabase()
        defer {
            ServeCommandTests.remove(database)
            ServeCommandTests.remove(copy)
        }
        let server = try ServerProcess(database: database)
        let client = try TestClient(port: server.port)
        #expect(client.request("POST", "/v1/users/alice/receipts", headers: Self.api, body: try Self.table61())?.status == 200)
        let stopped = server.stop(signal: SIGTERM)
        #expect(stopped.status == 0, "\(stopped.errors)")
        #expect(stopped.errors.contains("stopped; the database is closed\n"), "\(stopped.errors)")
        // Every connection closed: SQLite removes the -wal and -shm files when the last one closes.
        #expect(!FileManager.default.fileExists(atPath: database + "-wal"))
        #expect(!FileManager.default.fileExists(atPath: database + "-shm"))
        try FileManager.default.copyItem(atPath: database, toPath: copy)
        let copied = try Database(path: copy)
        // Without the checkpoint the copy has no tables at all ("no such table").
        let transactions = try copied.scalar("SELECT count(*) FROM transactions")
        #expect(transactions != nil && transactions != .integer(0), "\(String(describing: transactions))")
        let users = try copied.scalar("SELECT user_id FROM users")
        #expect(users == .text("alice"), "\(String(describing: users))")
    }

    /// A port in use exits 75 (EX_TEMPFAIL), which the documented unit restarts on, and the
    /// start that failed created no database.
    @Test func busyPort_exits75_andCreatesNoDatabase() throws {
        let first = ServeCommandTests.temporaryDatabase()
        let second = ServeCommandTests.temporaryDatabase()
        defer {
            ServeCommandTests.remove(first)
            ServeCommandTests.remove(second)
        }
        let server = try ServerProcess(database: first)
        defer { _ = server.stop(signal: SIGTERM) }
        let outcome = try Tool.run(
            ["serve", "--catalog", "Catalog/the-monthly", "--database", second, "--port", String(server.port)], environment: ServerProcess.environment)
        #expect(outcome.status == 75, "\(outcome.errors)")
        #expect(outcome.errors.contains("cannot listen on 127.0.0.1:\(server.port) now"), "\(outcome.errors)")
        for suffix in ["", "-wal", "-shm"] { #expect(!FileManager.default.fileExists(atPath: second + suffix), "\(second + suffix)") }
    }

    /// The README's serve command (the catalog names the app; no appStoreBundleId): signed
    /// transactions are taken in, and the start-up line says for which app.
    @Test func catalogsApp_isTheAppWhoseSignedDataServeAccepts() throws {
        let database = ServeCommandTests.temporaryDatabase()
        defer { ServeCommandTests.remove(database) }
        let root = TestChain.directory.appendingPathComponent("root.pem").path
        let server = try ServerProcess(database: database, extra: ["--appStoreRootCertificates", root])
        let client = try TestClient(port: server.port)
        let signed = [UInt8](try Data(contentsOf: Tool.root.appendingPathComponent("Catalog/the-monthly/receipts/table-6-1-signed.json")))
        let posted = client.request("POST", "/v1/users/alice/transactions", headers: Self.api, body: signed)
        #expect(posted?.status == 200, "\(posted?.body ?? "no answer")")
        let check = client.request("GET", "/v1/users/alice/issues/the-monthly/2020-06?at=2020-07-02T00:00:00Z", headers: Self.api)
        #expect(check?.body.contains(#""readable":true"#) == true, "\(check?.body ?? "no answer")")
        let stopped = server.stop(signal: SIGTERM)
        #expect(
            stopped.errors.contains(
                #"signed data: accepted for bundle id com.example.magazine (from the "app" of Catalog/the-monthly/catalog.json), App Apple ID not checked, environments Production, Sandbox, roots \#(root)"#),
            "\(stopped.errors)")
    }

    /// Every missing secret and invalid setting in one run.
    @Test func missingSecretsAndInvalidSettings_areReportedAtOnce() throws {
        let outcome = try Tool.run(["serve", "--port", "0", "--database", "/tmp/never.sqlite", "--threads", "0"], environment: [:])
        #expect(outcome.status == 78)
        for problem in ["MASTHEAD_API_TOKEN is not set", "MASTHEAD_ADMIN_TOKEN is not set", "MASTHEAD_APP_STORE_SHARED_SECRET is not set", "threads must be from 1 to 64"] {
            #expect(outcome.errors.contains(problem), "\(problem): \(outcome.errors)")
        }
    }

    @Test func databaseInAFolderThatDoesNotExist_isReported_namingTheFolder() throws {
        let folder = "/tmp/masthead-missing-\(UUID().uuidString)/state"
        let outcome = try Tool.run(["serve", "--port", "0", "--database", folder + "/masthead.sqlite"], environment: ServerProcess.environment)
        #expect(outcome.status == 73)
        #expect(outcome.errors.contains("the folder \(folder) does not exist"), "\(outcome.errors)")
        #expect(!outcome.errors.contains("SQLite error 14"), "\(outcome.errors)")
    }

    /// `refresh` names the shared secret it needs and why; `migrate` needs no shared secret and
    /// names the App Store Server API key it does need.
    @Test func refreshAndMigrate_withoutSecrets_nameWhatTheyNeed() throws {
        let database = ServeCommandTests.temporaryDatabase()
        defer { ServeCommandTests.remove(database) }
        let refresh = try Tool.run(["refresh", "--catalog", "Catalog/the-monthly", "--database", database], environment: [:])
        #expect(refresh.status == 78)
        #expect(refresh.errors.contains("MASTHEAD_APP_STORE_SHARED_SECRET is not set: it is the password verifyReceipt needs"), "\(refresh.errors)")
        let migrate = try Tool.run(["migrate", "--catalog", "Catalog/the-monthly", "--database", database], environment: [:])
        #expect(migrate.status == 78)
        #expect(!migrate.errors.contains("SHARED_SECRET"), "\(migrate.errors)")
        #expect(migrate.errors.contains("MASTHEAD_APP_STORE_KEY_ID"), "\(migrate.errors)")
        #expect(!FileManager.default.fileExists(atPath: database), "migrate without its key created the database")
    }

    /// The database, its `-wal` and its `-shm` are readable by the service's user only.
    @Test func databaseFiles_areCreatedReadableByTheirOwnerOnly() throws {
        let database = ServeCommandTests.temporaryDatabase()
        defer { ServeCommandTests.remove(database) }
        let previous = umask(0o022)
        defer { umask(previous) }
        let server = try ServerProcess(database: database)
        let client = try TestClient(port: server.port)
        #expect(client.request("POST", "/v1/users/alice/receipts", headers: Self.api, body: try Self.table61())?.status == 200)
        for suffix in ["", "-wal", "-shm"] {
            let mode = try FileManager.default.attributesOfItem(atPath: database + suffix)[.posixPermissions] as? Int
            #expect(mode == 0o600, "\(suffix): \(String(mode ?? -1, radix: 8))")
        }
        _ = server.stop(signal: SIGTERM)
    }

    /// `--accessLog FILE`: one JSON line per request with its time, method, path (no query, no app
    /// account token), status, bytes and duration.
    @Test func accessLog_writesOneJSONLinePerRequest_withoutTokens() throws {
        let database = ServeCommandTests.temporaryDatabase()
        defer { ServeCommandTests.remove(database) }
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = folder.appendingPathComponent("access.log").path
        let server = try ServerProcess(database: database, extra: ["--accessLog", log])
        let client = try TestClient(port: server.port)
        let token = "3f2504e0-4f89-41d3-9a0c-0305e82c3301"
        #expect(client.request("GET", "/health")?.status == 200)
        #expect(client.request("PUT", "/v1/users/alice/app-account-tokens/\(token)", headers: Self.api)?.status == 200)
        #expect(client.request("GET", "/v1/users/alice/issues/the-monthly/2020-06?at=2020-07-02T00:00:00Z", headers: Self.api)?.status == 200)
        #expect(client.request("GET", "/v1/users/alice/entitlements")?.status == 401)
        let stopped = server.stop(signal: SIGTERM)
        #expect(stopped.status == 0, "\(stopped.errors)")
        let text = try String(contentsOfFile: log, encoding: .utf8)
        #expect(!text.contains(token), "\(text)")
        #expect(!text.contains("api-token"), "\(text)")
        let lines = text.split(separator: "\n").map { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(lines.count == 4, "\(text)")
        let expected: [(String, String, Int)] = [
            ("GET", "/health", 200), ("PUT", "/v1/users/alice/app-account-tokens/{appAccountToken}", 200),
            ("GET", "/v1/users/alice/issues/the-monthly/2020-06", 200), ("GET", "/v1/users/alice/entitlements", 401),
        ]
        for (line, (method, path, status)) in zip(lines, expected) {
            let line = try #require(line, "\(text)")
            #expect(line["method"] as? String == method)
            #expect(line["path"] as? String == path)
            #expect(line["status"] as? Int == status)
            #expect((line["bytes"] as? Int ?? 0) > 0)
            #expect(line["durationMicroseconds"] is Int)
            #expect((line["time"] as? String)?.hasSuffix("Z") == true)
        }
        let mode = try FileManager.default.attributesOfItem(atPath: log)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }
}
