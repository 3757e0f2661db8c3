import Foundation
import Glibc
import MastheadCLI
import MastheadClock
import MastheadFormats

/// Audit: generate a population, time `masthead audit` and the Python parse on it.
func runAuditBenchmark(_ options: BenchOptions, masthead: String) throws {
    // Generate the population.
    let input = options.work + "/receipts-\(options.users)-\(options.seed).jsonl"
    let generationStart = SystemClock.seconds()
    let bytes = try writePopulation(options, to: input)
    let megabytes = Double(bytes) / 1_000_000
    print("generated \(options.users) users, \(String(format: "%.1f", megabytes)) MB in \(String(format: "%.1f", SystemClock.seconds() - generationStart)) s: \(input)")

    // Interleaved, so that each pair sees the machine in about the same state.
    var pairs: [(audit: Measurement, python: Measurement)] = []
    for _ in 0..<options.runs {
        let audit = measure(
            [masthead, "audit", "--catalog", options.catalog, "--receipts", input, "--at", "2021-06-30T00:00:00Z"],
            stdoutPath: options.work + "/audit.jsonl")
        let python = measure(
            ["python3", "-c", "import json,sys; [json.loads(l) for l in open(sys.argv[1])]", input], stdoutPath: "/dev/null")
        pairs.append((audit, python))
    }

    func row(_ name: String, _ result: Measurement) -> String {
        let usersPerSecond = Double(options.users) / result.wall
        return "| \(name) | \(String(format: "%.2f", result.wall)) | \(String(format: "%.2f", result.cpu)) | "
            + "\(String(format: "%.0f", usersPerSecond)) | \(String(format: "%.0f", megabytes / result.wall)) | "
            + "\(String(format: "%.0f", result.peakMiB)) | \(result.status) |"
    }
    print("")
    print("| run | wall s | cpu s | users/s | MB/s | peak MiB | exit |")
    print("|---|---|---|---|---|---|---|")
    for (audit, python) in pairs {
        print(row("masthead audit (decide + write)", audit))
        print(row("python3 json.loads per line (parse only)", python))
    }
    print("")
    let ratios = pairs.map { $0.python.wall / $0.audit.wall }
    print("masthead audit is " + ratios.map { String(format: "%.1fx", $0) }.joined(separator: ", ") + " the speed of the Python parse"
        + (pairs.count > 1 ? String(format: " (best of each: %.1fx)", pairs.map(\.python.wall).min()! / pairs.map(\.audit.wall).min()!) : ""))
    // CPU time is the cost per reader whatever the cores and the machine's load: the Python
    // parse uses one core, the audit all of them.
    let cpuRatios = pairs.map { $0.python.cpu / $0.audit.cpu }
    let perReader = { (cpu: Double) in String(format: "%.1f", cpu * 1e6 / Double(options.users)) }
    print("in CPU time, the Python parse takes " + cpuRatios.map { String(format: "%.1fx", $0) }.joined(separator: ", ") + " as long as masthead audit"
        + " (CPU microseconds a reader: audit " + pairs.map { perReader($0.audit.cpu) }.joined(separator: ", ")
        + "; Python " + pairs.map { perReader($0.python.cpu) }.joined(separator: ", ") + ")")
}
