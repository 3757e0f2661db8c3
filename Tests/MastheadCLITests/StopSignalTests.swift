import Foundation
import Glibc
import Testing

/// `audit` and `generate` stopped by SIGINT or SIGTERM while writing: no `*.partial-*` temporary file
/// is left behind, and the process ends by the signal.
struct StopSignalTests {
    /// A receipts file the debug build audits for a few seconds, made once.
    static let receipts: Result<URL, any Error> = Result {
        let folder = try Tool.temporaryFolder()
        let file = folder.appendingPathComponent("receipts.jsonl")
        let made = try Tool.run(["generate", "--catalog", "Catalog/the-monthly", "--users", "2000", "--seed", "5", "--output", file.path])
        guard made.status == 0 else { throw CocoaError(.fileWriteUnknown) }
        return file
    }

    static let cases: [(command: String, signal: Int32)] = [("audit", SIGINT), ("audit", SIGTERM), ("generate", SIGINT), ("generate", SIGTERM)]

    @Test(arguments: cases)
    func command_stoppedBySignal_removesItsPartialFiles_andEndsByTheSignal(command: String, signal: Int32) throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("output").path
        let second = folder.appendingPathComponent("second").path
        let arguments: [String]
        if command == "audit" {
            arguments = ["audit", "--catalog", "Catalog/the-monthly", "--receipts", try Self.receipts.get().path, "--output", output, "--report", second]
        } else {
            arguments = ["generate", "--catalog", "Catalog/the-monthly", "--users", "10000000", "--output", output, "--grants", second]
        }
        let process = Process()
        process.executableURL = Tool.binary
        process.arguments = arguments
        process.currentDirectoryURL = Tool.root
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        // The child inherits this thread's signal mask: give it SIGINT and SIGTERM unblocked, as
        // a shell would (test threads may have them blocked).
        var stopSignals = sigset_t()
        sigemptyset(&stopSignals)
        sigaddset(&stopSignals, SIGINT)
        sigaddset(&stopSignals, SIGTERM)
        var previous = sigset_t()
        pthread_sigmask(SIG_UNBLOCK, &stopSignals, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        try process.run()
        // Stopped once it is writing: both temporary files exist (bounded wait, 60 s).
        for _ in 0..<6000 where Self.partialFiles(folder).count < 2 && process.isRunning { usleep(10_000) }
        #expect(Self.partialFiles(folder).count == 2, "the command did not start writing")
        kill(process.processIdentifier, signal)
        // Bounded: a command that does not stop is killed and the test fails.
        for _ in 0..<3000 where process.isRunning { usleep(10_000) }
        #expect(!process.isRunning, "the command did not stop")
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)
        #expect(process.terminationStatus == signal)
        #expect(Self.partialFiles(folder) == [])
        #expect(!FileManager.default.fileExists(atPath: output))
        #expect(!FileManager.default.fileExists(atPath: second))
    }

    static func partialFiles(_ folder: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.contains(".partial-") }.sorted()
    }
}
