import Foundation
import MastheadTestSupport

/// Runs the built `masthead` binary, as a user would.
enum Tool {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static var binary: URL {
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("masthead")
        if FileManager.default.isExecutableFile(atPath: beside.path) { return beside }
        return root.appendingPathComponent(".build/debug/masthead")
    }

    /// The built `masthead-bench`, beside `masthead`.
    static var benchBinary: URL { binary.deletingLastPathComponent().appendingPathComponent("masthead-bench") }

    struct Outcome {
        var status: Int32
        var output: String
        var errors: String
    }

    /// Runs `masthead arguments…` in the package root; standard input is empty. `environment`
    /// replaces the inherited one when given (keeping the sanitizer options, see `sanitizerOptions`).
    static func run(_ arguments: [String], environment: [String: String]? = nil) throws -> Outcome {
        try runProgram(binary.path, arguments, environment: environment)
    }

    /// Runs `masthead arguments…` with `input` on its standard input, through a pipe.
    static func run(_ arguments: [String], input: Data) throws -> Outcome {
        try runProgram(binary.path, arguments, input: input)
    }

    /// Runs any program the same way; standard input is `input` through a pipe when given, else empty.
    static func runProgram(_ path: String, _ arguments: [String], environment: [String: String]? = nil, input: Data? = nil) throws -> Outcome {
        ignoreBrokenPipes()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.currentDirectoryURL = root
        if let environment { process.environment = environment.merging(sanitizerOptions) { given, _ in given } }
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        let inputPipe = input.map { _ in Pipe() }
        process.standardInput = inputPipe ?? FileHandle.nullDevice
        try process.run()
        // Read both pipes before waiting, so a large output cannot block the child.
        let group = DispatchGroup()
        let queue = DispatchQueue(label: "tool-output", attributes: .concurrent)
        nonisolated(unsafe) var outBox = Data()
        nonisolated(unsafe) var errBox = Data()
        queue.async(group: group) { outBox = output.fileHandleForReading.readDataToEndOfFile() }
        queue.async(group: group) { errBox = errors.fileHandleForReading.readDataToEndOfFile() }
        if let inputPipe, let input {
            queue.async(group: group) {
                try? inputPipe.fileHandleForWriting.write(contentsOf: input)
                try? inputPipe.fileHandleForWriting.close()
            }
        }
        group.wait()
        process.waitUntilExit()
        return Outcome(
            status: process.terminationStatus, output: String(decoding: outBox, as: UTF8.self),
            errors: String(decoding: errBox, as: UTF8.self))
    }

    /// The sanitizer settings of the test run (`TSAN_OPTIONS`, `ASAN_OPTIONS`, …), which the
    /// programs it starts need too: under `.ci/sanitize thread`, a child without the suppressions
    /// would report the Mutex hand-overs ThreadSanitizer cannot see and exit 66.
    static let sanitizerOptions = ProcessInfo.processInfo.environment.filter { $0.key.hasSuffix("SAN_OPTIONS") }

    /// A fresh temporary folder.
    static func temporaryFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("masthead-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// The cells of the summary row labelled `label` on standard error (cells are separated by
    /// two or more spaces), or nil when there is no such row.
    static func summaryRow(_ errors: String, _ label: String) -> [String]? {
        for line in errors.split(separator: "\n") {
            let cells = line.split(separator: "  ").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            if cells.first == label { return Array(cells.dropFirst()) }
        }
        return nil
    }
}
