import Foundation
import Glibc
import MastheadTestSupport
import Testing

/// `masthead serve` and the open-file limit: the soft limit raised to what the connections need,
/// when it cannot be, the connections capped so that descriptors stay for the database, and out
/// of descriptors all the same, a server that waits without spinning and recovers. Each runs the
/// server as a child with its own limit (`ulimit` in `sh`, or `prlimit` on the running child),
/// never lowering this process's.
struct DescriptorLimitTests {
    /// A process's user and system CPU time so far, in seconds (`/proc/PID/stat`).
    static func cpuSeconds(_ pid: Int32) throws -> Double {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        // The fields after the command's closing parenthesis start with the state (field 3).
        let fields = stat[stat.index(after: try #require(stat.lastIndex(of: ")")))...].split(separator: " ")
        let ticks = try #require(Double(fields[11])) + (try #require(Double(fields[12])))
        return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    static func openDescriptors(_ pid: Int32) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? 0
    }

    /// The soft and hard "Max open files" of a process (`/proc/PID/limits`).
    static func openFileLimits(_ pid: Int32) throws -> (soft: Int, hard: Int) {
        let limits = try String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8)
        let line = try #require(limits.split(separator: "\n").first { $0.hasPrefix("Max open files") })
        let numbers = line.split(separator: " ").compactMap { Int($0) }
        return (numbers[0], numbers[1])
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

    /// A limit lower than the connections need lowers `maxConnectionsPerThread` to what leaves
    /// `DescriptorLimit.reserved` descriptors free: 74 descriptors and one loop take 10
    /// connections, the rest are answered 503, and a request that writes the database still
    /// works while the connections are at the cap.
    @Test func lowOpenFileLimit_capsTheConnections_andLeavesDescriptorsForTheDatabase() throws {
        let database = ServeCommandTests.temporaryDatabase()
        defer { ServeCommandTests.remove(database) }
        let server = try ServerProcess(database: database, extra: ["--threads", "1"], openFileLimit: "-n 74")
        let clients = try (0..<30).map { _ in try TestClient(port: server.port) }
        let statuses = clients.map { $0.request("GET", "/health")?.status ?? 0 }
        #expect(statuses.filter { $0 == 200 }.count == 10, "\(statuses)")
        // Those past the cap are answered 503 and closed (the request may meet the closed socket first).
        #expect(statuses.allSatisfy { $0 == 200 || $0 == 503 || $0 == 0 }, "\(statuses)")
        let held = try #require(clients.indices.first { statuses[$0] == 200 }.map { clients[$0] })
        let alice = Array(try String(contentsOf: Tool.root.appendingPathComponent("Catalog/the-monthly/receipts/table-6-1.json"), encoding: .utf8).utf8)
        #expect(held.request("POST", "/v1/users/alice/receipts", headers: ["Authorization": "Bearer api-token"], body: alice)?.status == 200)
        #expect(held.request("GET", "/v1/users/alice/entitlements?at=2020-07-02T00:00:00Z", headers: ["Authorization": "Bearer api-token"])?.status == 200)
        let stopped = server.stop(signal: SIGTERM)
        #expect(stopped.errors.contains("masthead: warning: the open-file limit is 74 (hard limit 74)"), "\(stopped.errors)")
        #expect(stopped.errors.contains("maxConnectionsPerThread is lowered to 10"), "\(stopped.errors)")
    }

    /// Out of descriptors for another reason than its connections (here its limit lowered while it
    /// runs, below what the connections it started with need), `accept` fails with EMFILE while
    /// connections wait in the listen queue: the loop must back off instead of being woken for
    /// them at once, again and again, and serve again once descriptors are free.
    @Test func outOfFileDescriptors_theServerWaitsWithoutSpinning_andRecovers() throws {
        let prlimit = try #require(["/usr/bin/prlimit", "/bin/prlimit"].first { FileManager.default.isExecutableFile(atPath: $0) }, "prlimit (util-linux) is needed")
        let database = ServeCommandTests.temporaryDatabase()
        defer { ServeCommandTests.remove(database) }
        let server = try ServerProcess(database: database, extra: ["--threads", "1", "--maxConnectionsPerThread", "200"])
        let pid = server.process.processIdentifier
        let lowered = try Tool.runProgram(prlimit, ["--pid", "\(pid)", "--nofile=64:\(try Self.openFileLimits(pid).hard)"])
        try #require(lowered.status == 0, "\(lowered.errors)")
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
        _ = server.stop(signal: SIGTERM)
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
