// masthead-bench: measures the release build, reproducing the published figures.
// `masthead-bench --help` lists the benchmarks; build first with `swift build -c release`.
import Foundation
import Glibc
import MastheadCLI
import MastheadClock
import MastheadFormats

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("masthead-bench: \(message)\n".utf8))
    exit(64)
}

/// One program run's wall seconds, CPU seconds, peak resident memory (MiB) and exit status.
typealias Measurement = (wall: Double, cpu: Double, peakMiB: Double, status: Int32)

/// Runs a program to completion and measures it.
func measure(_ arguments: [String], stdoutPath: String, stderrPath: String = "/dev/null") -> Measurement {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    let argv = arguments.map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    // The program starts with no signal blocked or ignored, whatever the thread that starts it
    // blocks (Dispatch's threads block them all): `openssl speed` stops each test on SIGALRM.
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var none = sigset_t()
    var all = sigset_t()
    sigemptyset(&none)
    sigfillset(&all)
    posix_spawnattr_setsigmask(&attributes, &none)
    posix_spawnattr_setsigdefault(&attributes, &all)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    var pid = pid_t()
    let started = SystemClock.seconds()
    let spawned = posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, environ)
    guard spawned == 0 else { fail("cannot start \(arguments[0]): \(String(cString: strerror(spawned)))") }
    var status: Int32 = 0
    var usage = rusage()
    wait4(pid, &status, 0, &usage)
    let wall = SystemClock.seconds() - started
    let cpu = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
        + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    return (wall, cpu, Double(usage.ru_maxrss) / 1024, (status >> 8) & 0xFF)
}

let command: CommandSpec
let options: BenchOptions
do throws(CLIError) {
    switch try BenchOptions.tool.request(Array(CommandLine.arguments.dropFirst())) {
    case .print(let text):
        print(text, terminator: "")
        exit(0)
    case .run(let spec, _, let arguments):
        command = spec
        options = try BenchOptions(Arguments(arguments, spec: spec))
    }
} catch {
    FileHandle.standardError.write(Data("masthead-bench: \(error)\n".utf8))
    exit(error.exitStatus)
}
let binaryFolder = String(CommandLine.arguments[0].split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/"))
let masthead = (binaryFolder.isEmpty ? "." : binaryFolder) + "/masthead"
guard access(masthead, X_OK) == 0 else { fail("\(masthead) not found: build it first (swift build -c release)") }
mkdir(options.work, 0o755)
do {
    switch command.name {
    case "audit" where options.signed: try runSignedAuditBenchmark(options, masthead: masthead)
    case "audit": try runAuditBenchmark(options, masthead: masthead)
    case "database": try runDatabaseBenchmark(options, masthead: masthead)
    case "grants": try runGrantsBenchmark(options, masthead: masthead)
    case "service": try runServiceBenchmark(options, masthead: masthead)
    case "scale": try runScaleBenchmark(options, masthead: masthead)
    case "soak": try runSoakBenchmark(options, masthead: masthead)
    default: preconditionFailure("no benchmark \(command.name)")
    }
} catch {
    FileHandle.standardError.write(Data("masthead-bench: \(error)\n".utf8))
    exit((error as? CLIError)?.exitStatus ?? 1)
}
