// masthead-bench: measures the release build, reproducing the figures in README.md.
//
//   masthead-bench audit [--users N] [--seed S] [--work DIR] [--runs N]  audit vs. Python's json module
//   masthead-bench service [--seconds N] [--loops N] [--work DIR]  the service under wrk
//   masthead-bench database [--users N] [--seed S] [--work DIR]  audit --database vs. --receipts
//   masthead-bench soak [--minutes N] [--loops N] [--work DIR]  mixed traffic for N minutes, memory and WAL over time
//
// Build first with `swift build -c release`.
import Foundation
import Glibc

struct Options {
    var users = 100_000
    var seed: UInt64 = 1
    var work = "/tmp/masthead-bench"
    var catalog = "Catalog/the-monthly"
    var seconds = 10
    /// Event loops of the benchmarked server (service mode).
    var loops = 2
    /// Pairs of audit and Python runs (audit mode).
    var runs = 1
    /// Length of the run (soak mode).
    var minutes = 10

    init(_ arguments: [String]) {
        var index = 0
        while index + 1 < arguments.count {
            let value = arguments[index + 1]
            switch arguments[index] {
            case "--users": users = Int(value) ?? users
            case "--seed": seed = UInt64(value) ?? seed
            case "--work": work = value
            case "--catalog": catalog = value
            case "--seconds": seconds = Int(value) ?? seconds
            case "--loops": loops = Int(value) ?? loops
            case "--runs": runs = Int(value) ?? runs
            case "--minutes": minutes = Int(value) ?? minutes
            default: fail("unknown option \(arguments[index]); options: --users N --seed S --work DIR --catalog DIR --seconds N --loops N --runs N --minutes N")
            }
            index += 2
        }
    }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("masthead-bench: \(message)\n".utf8))
    exit(64)
}

func seconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// One program run's wall seconds, CPU seconds, peak resident memory (MiB) and exit status.
typealias Measurement = (wall: Double, cpu: Double, peakMiB: Double, status: Int32)

/// Runs a program to completion and measures it.
func measure(_ arguments: [String], stdoutPath: String) -> Measurement {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    let argv = arguments.map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid = pid_t()
    let started = seconds()
    let spawned = posix_spawnp(&pid, arguments[0], &actions, nil, argv, environ)
    guard spawned == 0 else { fail("cannot start \(arguments[0]): \(String(cString: strerror(spawned)))") }
    var status: Int32 = 0
    var usage = rusage()
    wait4(pid, &status, 0, &usage)
    let wall = seconds() - started
    let cpu = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
        + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    return (wall, cpu, Double(usage.ru_maxrss) / 1024, (status >> 8) & 0xFF)
}

var arguments = Array(CommandLine.arguments.dropFirst())
var mode = "audit"
if let first = arguments.first, !first.hasPrefix("--") {
    mode = first
    arguments.removeFirst()
}
let options = Options(arguments)
let binaryFolder = String(CommandLine.arguments[0].split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/"))
let masthead = (binaryFolder.isEmpty ? "." : binaryFolder) + "/masthead"
guard access(masthead, X_OK) == 0 else { fail("\(masthead) not found: build it first (swift build -c release)") }
mkdir(options.work, 0o755)
switch mode {
case "audit": try runAuditBenchmark(options, masthead: masthead)
case "service": try runServiceBenchmark(options, masthead: masthead)
case "database": try runDatabaseBenchmark(options, masthead: masthead)
case "soak": try runSoakBenchmark(options, masthead: masthead)
default: fail("unknown mode \(mode); use audit, database, service or soak")
}
