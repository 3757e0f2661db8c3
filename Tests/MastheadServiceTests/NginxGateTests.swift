import Foundation
import Glibc
import MastheadService
import MastheadTestSupport
import Testing

/// The gate behind a real nginx: the server block Operating.md gives, its ports, folder and token
/// filled in, run by `/usr/sbin/nginx` (or the binary `MASTHEAD_TEST_NGINX` names) as a plain
/// foreground process with its own configuration in a temporary folder, in front of a folder of
/// two issue PDFs and the service on a real socket. Skipped, saying so, when nginx is not
/// installed (`.ci/run` installs it).
@Suite(.enabled(if: TestNginx.isInstalled, "nginx is not installed: apt-get install nginx (or name a binary in MASTHEAD_TEST_NGINX)"))
struct NginxGateTests {

    /// The first `nginx` block of Operating.md.
    static func documentedBlock() throws -> String {
        let text = try OperatingGuideTests.text()
        let start = try #require(text.range(of: "```nginx\n"), "Operating.md has no nginx block")
        let end = try #require(text[start.upperBound...].range(of: "```"))
        return String(text[start.upperBound..<end.lowerBound])
    }

    /// `block` with each placeholder replaced, each required to occur exactly once so that the
    /// test runs what the guide says.
    static func filledIn(_ block: String, _ replacements: [(String, String)]) throws -> String {
        var text = block
        for (placeholder, value) in replacements {
            #expect(text.components(separatedBy: placeholder).count == 2, "Operating.md's nginx block should hold \(placeholder) once")
            text = text.replacingOccurrences(of: placeholder, with: value)
        }
        return text
    }

    @Test func nginx_servesAReadableIssuesFile_refusesAnother_andShowsTheReason() throws {
        let harness = try ServiceHarness { $0.apiToken = "dev-token" }
        defer { harness.close() }
        #expect(harness.call("POST", "/v1/users/alice/receipts", token: "dev-token", body: try ServiceHarness.example("table-6-1")).status == 200)
        let server = try ServiceHTTPTests.serve(harness)
        defer { ServiceHTTPTests.stop(server) }

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("masthead-nginx-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let issues = folder.appendingPathComponent("www/issues/the-monthly")
        try FileManager.default.createDirectory(at: issues, withIntermediateDirectories: true)
        let june = "%PDF-1.4\n% The Monthly, June 2020\n%%EOF\n"
        try Data(june.utf8).write(to: issues.appendingPathComponent("2020-06.pdf"))
        try Data("%PDF-1.4\n% The Monthly, May 2020\n%%EOF\n".utf8).write(to: issues.appendingPathComponent("2020-05.pdf"))

        let port = try Self.freePort()
        let block = try Self.filledIn(
            try Self.documentedBlock(),
            [("server 127.0.0.1:8080;", "server 127.0.0.1:\(server.port);"), ("listen 80;", "listen 127.0.0.1:\(port);"),
             ("root /srv/magazine;", "root \(folder.path)/www;")])
        try block.write(to: folder.appendingPathComponent("magazine.conf"), atomically: true, encoding: .utf8)
        try Self.mainConfiguration(folder.path).write(to: folder.appendingPathComponent("nginx.conf"), atomically: true, encoding: .utf8)

        let nginx = try NginxProcess.start(binary: TestNginx.binary, folder: folder.path, port: port)
        defer { nginx.stop() }

        let client = try TestClient(port: port)
        let reader = ["X-Reader-Id": "alice"]
        let served = try #require(client.request("GET", "/issues/the-monthly/2020-06.pdf", headers: reader))
        #expect(served.status == 200, "\(served.body)")
        #expect(served.body == june)
        #expect(served.headers["masthead-reason"] == "unlockedAtPeriodStart")
        let refused = try #require(client.request("GET", "/issues/the-monthly/2020-05.pdf", headers: reader))
        #expect(refused.status == 403)
        #expect(refused.headers["masthead-reason"] == "publishedDuringLapse")
        #expect(!refused.body.contains("May 2020"))
        let missing = try #require(client.request("GET", "/issues/the-monthly/1999-01.pdf", headers: reader))
        #expect(missing.status == 403)
        #expect(missing.headers["masthead-reason"] == "unknown_issue")
        let stranger = try #require(client.request("GET", "/issues/the-monthly/2020-06.pdf", headers: ["X-Reader-Id": "bob"]))
        #expect(stranger.status == 403)
        #expect(stranger.headers["masthead-reason"] == "notSubscribed")
        let anonymous = try #require(client.request("GET", "/issues/the-monthly/2020-06.pdf"))
        #expect(anonymous.status == 401)
        #expect(!anonymous.body.contains("June 2020"))
        let notAnIssue = try #require(client.request("GET", "/issues/the-monthly/2020-06.pdf.bak", headers: reader))
        #expect(notAnIssue.status == 404)
    }

    /// The `nginx.conf` around the guide's block: one foreground process, every file it writes in `folder`.
    static func mainConfiguration(_ folder: String) -> String {
        """
        daemon off;
        master_process off;
        pid \(folder)/nginx.pid;
        error_log \(folder)/error.log;
        events { worker_connections 64; }
        http {
            types { application/pdf pdf; }
            default_type application/octet-stream;
            access_log \(folder)/access.log;
            client_body_temp_path \(folder)/client_body;
            proxy_temp_path \(folder)/proxy;
            fastcgi_temp_path \(folder)/fastcgi;
            uwsgi_temp_path \(folder)/uwsgi;
            scgi_temp_path \(folder)/scgi;
            include \(folder)/magazine.conf;
        }

        """
    }

    /// A port on 127.0.0.1 that nothing listens on now.
    static func freePort() throws -> UInt16 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0 }
        }
        try #require(bound, "bind errno \(errno)")
        return UInt16(bigEndian: address.sin_port)
    }
}

/// The nginx the gate is tested behind: `MASTHEAD_TEST_NGINX`, else `/usr/sbin/nginx` (Debian's package).
enum TestNginx {
    static let binary: String = {
        if let given = ProcessInfo.processInfo.environment["MASTHEAD_TEST_NGINX"], !given.isEmpty { return given }
        return "/usr/sbin/nginx"
    }()

    static let isInstalled = access(binary, X_OK) == 0
}

/// nginx in the foreground (`daemon off`, `master_process off`), its output in the folder's `nginx.out`.
final class NginxProcess {
    let processId: pid_t
    let folder: String
    private var stopped = false

    private init(processId: pid_t, folder: String) {
        self.processId = processId
        self.folder = folder
    }

    /// Starts nginx on `folder/nginx.conf` and waits until it accepts connections on `port`
    /// (at most 20 s); fails with its error log when it exits or does not listen.
    static func start(binary: String, folder: String, port: UInt16) throws -> NginxProcess {
        // `-e`: the error log from the start, before the configuration names one.
        let arguments = [binary, "-p", folder + "/", "-c", folder + "/nginx.conf", "-e", folder + "/error.log"]
        let processId = try ChildProcess.spawn(arguments, log: folder + "/nginx.out")
        let nginx = NginxProcess(processId: processId, folder: folder)
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            if (try? TestClient(port: port, timeoutMilliseconds: 1000)) != nil { return nginx }
            var exitStatus: Int32 = 0
            if waitpid(processId, &exitStatus, WNOHANG) == processId {
                nginx.stopped = true
                Issue.record("nginx exited (status \(exitStatus)): \(nginx.logs)")
                throw NginxError.didNotStart
            }
            usleep(50_000)
        }
        nginx.stop()
        Issue.record("nginx did not listen on port \(port) within 20 s: \(nginx.logs)")
        throw NginxError.didNotStart
    }

    enum NginxError: Error { case didNotStart }

    /// What nginx wrote: its output and its error log.
    var logs: String {
        ["nginx.out", "error.log"].map { (try? String(contentsOfFile: folder + "/" + $0, encoding: .utf8)) ?? "" }.joined(separator: "\n")
    }

    /// Stops it (SIGTERM: a fast shutdown; SIGKILL when it is still there 10 s later) and reaps it.
    func stop() {
        guard !stopped else { return }
        stopped = true
        kill(processId, SIGTERM)
        var exitStatus: Int32 = 0
        let deadline = ContinuousClock.now + .seconds(10)
        while waitpid(processId, &exitStatus, WNOHANG) == 0 {
            if ContinuousClock.now > deadline {
                kill(processId, SIGKILL)
                waitpid(processId, &exitStatus, 0)
                return
            }
            usleep(20_000)
        }
    }
}
