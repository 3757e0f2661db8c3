import Foundation
import Glibc
import MastheadTestSupport

/// `masthead serve` run as a child process on port 0, as an operator would.
final class ServerProcess {
    let process = Process()
    let port: UInt16
    private let errors = Pipe()
    private let output = Pipe()

    static let environment = [
        "MASTHEAD_API_TOKEN": "api-token", "MASTHEAD_ADMIN_TOKEN": "admin-token", "MASTHEAD_APP_STORE_SHARED_SECRET": "shared-secret",
    ]

    /// Starts the server and waits for its `listening on HOST:PORT` line; `environment` is added
    /// to (and wins over) ``environment``; `openFileLimit` (the options of `ulimit`, such as
    /// `-n 64`) runs it through `sh` with that limit; `executable` run in `directory` (which must
    /// hold `Catalog/the-monthly`) instead of the built binary in the package root.
    init(
        database: String, extra: [String] = [], environment: [String: String] = [:], openFileLimit: String? = nil,
        executable: URL = Tool.binary, directory: URL = Tool.root
    ) throws {
        ignoreBrokenPipes()
        let arguments = ["serve", "--catalog", "Catalog/the-monthly", "--database", database, "--port", "0"] + extra
        if let openFileLimit {
            // exec: the shell becomes the server, so the process is the server's.
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "ulimit \(openFileLimit) && exec \"$0\" \"$@\"", executable.path] + arguments
        } else {
            process.executableURL = executable
            process.arguments = arguments
        }
        process.currentDirectoryURL = directory
        process.environment = ServerProcess.environment.merging(environment) { _, added in added }.merging(Tool.sanitizerOptions) { given, _ in given }
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        var line: [UInt8] = []
        let handle = output.fileHandleForReading
        while !line.contains(0x0A) {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            line += chunk
        }
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("listening on 127.0.0.1:"), let port = UInt16(text.dropFirst(23).prefix { $0.isNumber }) else {
            process.terminate()
            throw ServerError.didNotStart(text + String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
        }
        self.port = port
    }

    enum ServerError: Error { case didNotStart(String) }

    /// Sends a signal and waits for the process to end; returns its exit status and standard error.
    func stop(signal: Int32) -> (status: Int32, errors: String) {
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return (process.terminationStatus, text)
    }
}
