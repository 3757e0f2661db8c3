// masthead-bench: measures `masthead audit` on a generated population against Python's json
// module merely parsing the same file, in the same run. Build with `swift build -c release`.
//
//   masthead-bench [--users N] [--seed S] [--work DIR]
import Foundation
import Glibc
import Masthead
import MastheadFormats

struct Options {
    var users = 100_000
    var seed: UInt64 = 1
    var work = "/tmp/masthead-bench"
    var catalog = "Catalog/the-monthly"

    init(_ arguments: [String]) {
        var index = 0
        while index + 1 < arguments.count {
            let value = arguments[index + 1]
            switch arguments[index] {
            case "--users": users = Int(value) ?? users
            case "--seed": seed = UInt64(value) ?? seed
            case "--work": work = value
            case "--catalog": catalog = value
            default: fail("unknown option \(arguments[index]); options: --users N --seed S --work DIR --catalog DIR")
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

/// Runs a program to completion; returns wall seconds, CPU seconds and peak resident memory (MiB).
func measure(_ arguments: [String], stdoutPath: String) -> (wall: Double, cpu: Double, peakMiB: Double, status: Int32) {
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

let options = Options(Array(CommandLine.arguments.dropFirst()))
let binaryFolder = String(CommandLine.arguments[0].split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/"))
let masthead = (binaryFolder.isEmpty ? "." : binaryFolder) + "/masthead"
guard access(masthead, X_OK) == 0 else { fail("\(masthead) not found: build it first (swift build -c release)") }
mkdir(options.work, 0o755)

// The catalog, read once to know its products.
let catalogFile = options.catalog + "/catalog.json"
guard let handle = fopen(catalogFile, "rb") else { fail("cannot open \(catalogFile)") }
var catalogBytes: [UInt8] = []
var chunk = [UInt8](repeating: 0, count: 65_536)
while true {
    let count = fread(&chunk, 1, chunk.count, handle)
    if count == 0 { break }
    catalogBytes += chunk[0..<count]
}
fclose(handle)
let catalog = try CatalogDecoder().decode(catalogBytes, file: catalogFile)

// Generate the population.
let input = options.work + "/receipts-\(options.users)-\(options.seed).jsonl"
let generationStart = seconds()
var random = SeededGenerator(seed: options.seed)
let population = SyntheticPopulation(catalog: catalog, start: Instant(milliseconds: 1_577_836_800_000))
guard let file = fopen(input, "wb") else { fail("cannot write \(input)") }
var bytes = 0
for user in 0..<options.users {
    var line = population.line(user: user, random: &random)
    line.append(0x0A)
    bytes += line.count
    fwrite(line, 1, line.count, file)
}
fclose(file)
let megabytes = Double(bytes) / 1_000_000
print("generated \(options.users) users, \(String(format: "%.1f", megabytes)) MB in \(String(format: "%.1f", seconds() - generationStart)) s: \(input)")

let audit = measure(
    [masthead, "audit", "--catalog", options.catalog, "--receipts", input, "--at", "2021-06-30T00:00:00Z"],
    stdoutPath: options.work + "/audit.jsonl")
let python = measure(
    ["python3", "-c", "import json,sys; [json.loads(l) for l in open(sys.argv[1])]", input], stdoutPath: "/dev/null")

func row(_ name: String, _ result: (wall: Double, cpu: Double, peakMiB: Double, status: Int32)) -> String {
    let usersPerSecond = Double(options.users) / result.wall
    return "| \(name) | \(String(format: "%.2f", result.wall)) | \(String(format: "%.2f", result.cpu)) | "
        + "\(String(format: "%.0f", usersPerSecond)) | \(String(format: "%.0f", megabytes / result.wall)) | "
        + "\(String(format: "%.0f", result.peakMiB)) | \(result.status) |"
}
print("")
print("| run | wall s | cpu s | users/s | MB/s | peak MiB | exit |")
print("|---|---|---|---|---|---|---|")
print(row("masthead audit (decide + write)", audit))
print(row("python3 json.loads per line (parse only)", python))
print("")
print(String(format: "masthead audit is %.1fx the speed of the Python parse", python.wall / audit.wall))
