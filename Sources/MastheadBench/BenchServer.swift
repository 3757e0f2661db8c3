import Foundation
import Glibc

/// The release `masthead serve` on a fresh database in the work folder, listening on a free
/// loopback port.
struct BenchServer {
    let process: Process
    let port: Int
    let database: String
    static let apiToken = "bench-token"
    static let sharedSecret = "bench-secret"

    /// Starts the server with `configuration` (a JSON object's members) on `database` (a fresh
    /// SQLite file named for the run when nil), `environment` added to its own, and waits for its
    /// `listening on` line.
    static func start(
        _ options: BenchOptions, masthead: String, name: String, configuration: String, database given: String? = nil, environment: [String: String] = [:]
    ) throws -> BenchServer {
        let database = given ?? options.work + "/\(name).sqlite"
        if given == nil { for suffix in ["", "-wal", "-shm"] { unlink(database + suffix) } }
        let server = Process()
        server.executableURL = URL(fileURLWithPath: masthead)
        let configurationFile = options.work + "/\(name).json"
        try "{\(configuration)}".write(toFile: configurationFile, atomically: true, encoding: .utf8)
        server.arguments = ["serve", "--catalog", options.catalog, "--database", database, "--port", "0", "--config", configurationFile]
        server.environment = ["MASTHEAD_API_TOKEN": apiToken, "MASTHEAD_ADMIN_TOKEN": "bench-admin", "MASTHEAD_APP_STORE_SHARED_SECRET": sharedSecret]
            .merging(environment) { _, added in added }
        let output = Pipe()
        server.standardOutput = output
        try server.run()
        var line = Data()
        while !line.contains(0x0A) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { fail("the server did not start") }
            line += chunk
        }
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("listening on 127.0.0.1:"), let port = text.split(separator: ":").last.flatMap({ Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }) else {
            server.terminate()
            fail("unexpected start-up line \(text)")
        }
        return BenchServer(process: server, port: port, database: database)
    }

    /// Stops the server with SIGTERM and waits for it.
    func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}
