import Foundation
import Glibc
import MastheadTestSupport
import Testing

/// `masthead serve` and the open-file limit: the soft limit raised to what the connections need,
/// and, out of descriptors, a server that waits without spinning and recovers. Each runs the
/// server as a child with its own limit (`ulimit` in `sh`), never lowering this process's.
struct DescriptorLimitTests {
    /// A process's user and system CPU time so far, in seconds (`/proc/PID/stat`).
    static func cpuSeconds(_ pid: Int32) throws -> Double {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        // The fields after the command's closing parenthesis start with the state (field 3).
        let fields = stat[stat.index(after: try #require(stat.lastIndex(of: ")")))...].split(separator: " ")
        let ticks = try #require(Double(fields[11])) + (try #require(Double(fields[12])))
        return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The soft and hard "Max open files" of a process (`/proc/PID/limits`).
    static func openFileLimits(_ pid: Int32) throws -> (soft: Int, hard: Int) {
        let limits = try String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8)
        let line = try #require(limits.split(separator: "\n").first { $0.hasPrefix("Max open files") })
        let numbers = line.split(separator: " ").compactMap { Int($0) }
        return (numbers[0], numbers[1])
    }

    static func openDescriptors(_ pid: Int32) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? 0
    }

    @Test func softOpenFileLimit_isRaisedToWhatTheConnectionsNeed() throws {
        var own = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &own)
        try #require(own.rlim_max >= 164, "the hard limit must allow the test")
        let database = ServeCommandTests.temporaryDatabase()
        defer { ServeCommandTests.remove(database) }
        let server = try ServerProcess(
            database: database, extra: ["--threads", "1", "--maxConnectionsPerThread", "100"], openFileLimit: "-S -n 64")
        let limits = try Self.openFileLimits(server.process.processIdentifier)
        let stopped = server.stop(signal: SIGTERM)
        #expect(limits.soft == 100 + 64)
        #expect(!stopped.errors.contains("warning"), "\(stopped.errors)")
    }

    /// At the limit, `accept` fails with EMFILE while connections wait in the listen queue: the
    /// loop must back off instead of being woken for them at once, again and again.
    @Test func outOfFileDescriptors_theServerWaitsWithoutSpinning_andRecovers() throws {
        let database = ServeCommandTests.temporaryDatabase()
        defer { ServeCommandTests.remove(database) }
        let server = try ServerProcess(database: database, extra: ["--threads", "1"], openFileLimit: "-n 64")
        let pid = server.process.processIdentifier
        var clients = try (0..<80).map { _ in try TestClient(port: server.port) }
        #expect(ListenerWait.eventually { Self.openDescriptors(pid) >= 64 }, "the server never reached its limit")
        usleep(200_000)
        let before = try Self.cpuSeconds(pid)
        usleep(1_000_000)
        let spent = try Self.cpuSeconds(pid) - before
        // Backing off, it wakes about ten times a second: a few milliseconds; spinning, most of a core.
        #expect(spent < 0.1, "\(spent) s of CPU in 1 s at the limit")
        clients.removeAll()
        let client = try TestClient(port: server.port)
        #expect(client.request("GET", "/health")?.status == 200)
        let metrics = client.request("GET", "/metrics", headers: ["Authorization": "Bearer api-token"])?.body ?? ""
        let backoffs = metrics.split(separator: "\n").first { $0.hasPrefix("masthead_http_accept_backoffs_total ") }
        #expect((backoffs?.split(separator: " ").last.flatMap { Int($0) } ?? 0) > 0, "\(backoffs ?? "no metric")")
        let stopped = server.stop(signal: SIGTERM)
        #expect(stopped.errors.contains("masthead: warning: the open-file limit is 64 (hard limit 64)"), "\(stopped.errors)")
    }
}

/// Polling with a generous bound, for conditions another process brings about.
enum ListenerWait {
    static func eventually(_ condition: () -> Bool) -> Bool {
        for _ in 0..<1_000 {
            if condition() { return true }
            usleep(10_000)
        }
        return condition()
    }
}
