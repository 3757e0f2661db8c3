import Foundation
import MastheadPostgreSQL

/// The PostgreSQL cluster the tests use, one per test process, and a fresh database per test.
///
/// The cluster is the one `MASTHEAD_TEST_POSTGRES` names (a URL without a database, whose user
/// may create databases; `.ci/run` starts one with `.ci/postgres`), else one started here with
/// `.ci/postgres` in a temporary directory and stopped when the process exits. When PostgreSQL is
/// not installed, every PostgreSQL test fails saying how to install it, unless
/// `MASTHEAD_SKIP_POSTGRES=1` leaves those tests out.
public enum TestPostgreSQL {
    /// Whether the developer left the PostgreSQL tests out (`MASTHEAD_SKIP_POSTGRES=1`).
    public static let isSkipped = ProcessInfo.processInfo.environment["MASTHEAD_SKIP_POSTGRES"] == "1"

    /// A new empty database on the cluster: its URL. Databases are left to the cluster's removal.
    public static func freshDatabase() throws -> String {
        let base = try cluster.get()
        let name = "masthead_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let admin = try PostgreSQLConnection(base + "/postgres")
        try admin.execute("CREATE DATABASE \(name) STRATEGY = FILE_COPY")
        return base + "/" + name
    }

    /// The cluster's URL (no database), or why there is none.
    static let cluster: Result<String, TestPostgreSQLError> = {
        if let given = ProcessInfo.processInfo.environment["MASTHEAD_TEST_POSTGRES"], !given.isEmpty { return .success(given) }
        return start()
    }()

    /// Where the cluster this process started lives.
    static let directory = FileManager.default.temporaryDirectory.appendingPathComponent("masthead-postgres-\(getpid())").path

    /// The repository's `.ci/postgres` script.
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent(".ci/postgres").path

    private static func start() -> Result<String, TestPostgreSQLError> {
        // `system`, not Foundation's Process, whose wait for the script never returned here; files,
        // not pipes, for its output, since the server it leaves running would hold a pipe open.
        let output = directory + ".out"
        let errors = directory + ".err"
        defer { for file in [output, errors] { try? FileManager.default.removeItem(atPath: file) } }
        let status = shell("\(quoted(script)) start \(quoted(directory)) \(getpid()) > \(quoted(output)) 2> \(quoted(errors))")
        let printed = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        let complaint = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
        if status == 3 { return .failure(.notInstalled) }
        let prefix = "MASTHEAD_TEST_POSTGRES="
        guard status == 0, let line = printed.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) else {
            return .failure(.cannotStart("exit status \(status): \(complaint)"))
        }
        atexit { _ = TestPostgreSQL.shell("\(TestPostgreSQL.quoted(TestPostgreSQL.script)) stop \(TestPostgreSQL.quoted(TestPostgreSQL.directory))") }
        return .success(String(line.dropFirst(prefix.count)))
    }

    /// Runs a shell command; answers its exit status.
    private static func shell(_ command: String) -> Int32 {
        let status = system(command)
        return status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    }

    /// `text` in single quotes for the shell.
    private static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}

/// Why the tests have no PostgreSQL cluster.
public enum TestPostgreSQLError: Error, CustomStringConvertible {
    case notInstalled
    case cannotStart(String)

    public var description: String {
        switch self {
        case .notInstalled:
            """
            PostgreSQL is not installed, so the PostgreSQL store cannot be tested: install it with \
            `apt-get install postgresql-15 libpq-dev` (or set MASTHEAD_SKIP_POSTGRES=1 to leave these tests out)
            """
        case .cannotStart(let reason): "cannot start a PostgreSQL cluster with .ci/postgres: \(reason)"
        }
    }
}
