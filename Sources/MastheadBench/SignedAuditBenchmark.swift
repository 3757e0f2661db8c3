import Foundation
import Glibc
import MastheadCLI
import MastheadClock
import MastheadFormats
import MastheadSynthetic

/// The test chain that signs the benchmark's population: its leaf key, the chain as PEM, the root.
let testChain = "Tests/Fixtures/test-chain"

/// Audit --signed: generate the population as signed data, measure OpenSSL's own ES256 verify
/// rate on one core and on both, then time `masthead audit` verifying every token, and trusting
/// them (`--trust-verified`), in turns.
func runSignedAuditBenchmark(_ options: BenchOptions, masthead: String) throws {
    for file in ["leaf-key.pem", "chain.pem", "root.pem"] where access("\(testChain)/\(file)", R_OK) != 0 {
        fail("\(testChain)/\(file) not found: run from the repository's folder")
    }
    let input = options.work + "/signed-\(options.users)-\(options.seed).jsonl"
    let tokens = try signedTokenCount(options)
    // Generation is deterministic (RFC 6979 signatures): a file of the same users and seed is reused.
    if access(input, R_OK) == 0 {
        print("reusing \(input) (delete it to generate it again)")
    } else {
        let generated = measure(
            [
                masthead, "generate", "--catalog", options.catalog, "--users", String(options.users), "--seed", String(options.seed), "--signed",
                "--signing-key", "\(testChain)/leaf-key.pem", "--signing-chain", "\(testChain)/chain.pem", "--output", input,
            ], stdoutPath: "/dev/null")
        guard generated.status == 0 else { fail("masthead generate --signed exited with status \(generated.status)") }
        print(
            "generated in \(String(format: "%.1f", generated.wall)) s, \(String(format: "%.1f", generated.cpu)) s CPU "
                + "(\(String(format: "%.0f", Double(tokens) / generated.cpu)) signatures per CPU second)")
    }
    var info = stat()
    stat(input, &info)
    let megabytes = Double(info.st_size) / 1_000_000
    print(
        "\(options.users) users, \(tokens) tokens (\(String(format: "%.1f", Double(tokens) / Double(options.users))) a user), "
            + "\(String(format: "%.0f", megabytes)) MB: \(input)")

    let single = openSSLSpeed(cores: 1, seconds: options.seconds, work: options.work)
    let both = openSSLSpeed(cores: 2, seconds: options.seconds, work: options.work)
    print("")
    print("| run | verify/s | sign/s | load before |")
    print("|---|---|---|---|")
    print("| openssl speed -seconds \(options.seconds) ecdsap256 (one core) | \(String(format: "%.0f", single.verify)) | \(String(format: "%.0f", single.sign)) | \(single.load) |")
    print("| openssl speed -seconds \(options.seconds) -multi 2 ecdsap256 (both cores) | \(String(format: "%.0f", both.verify)) | \(String(format: "%.0f", both.sign)) | \(both.load) |")

    let audit = [masthead, "audit", "--catalog", options.catalog, "--receipts", input, "--at", "2021-06-30T00:00:00Z"]
    var runs: [(name: String, load: String, result: Measurement)] = []
    for _ in 0..<options.runs {
        for (name, trust) in [("verified", ["--root-certificate", "\(testChain)/root.pem"]), ("--trust-verified", ["--trust-verified"])] {
            let load = loadAverage()
            let result = measure(audit + trust, stdoutPath: options.work + "/signed-audit.jsonl", stderrPath: options.work + "/signed-audit-summary.txt")
            if result.status != 0 {
                fail("masthead audit exited with status \(result.status): see \(options.work)/signed-audit-summary.txt")
            }
            runs.append((name, load, result))
        }
    }
    print("")
    // OpenSSL's -multi rate is per wall second (the cores as shared at the time), its one-core
    // rate per CPU second: the audit is compared with each the same way.
    print("| masthead audit | wall s | cpu s | users/s | tokens/s | of OpenSSL's verify/s on both cores | tokens per cpu s | of OpenSSL's verify per cpu s | peak MiB | load before |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for run in runs {
        let rate = Double(tokens) / run.result.wall
        let perCPU = Double(tokens) / run.result.cpu
        print(
            "| \(run.name) | \(String(format: "%.1f", run.result.wall)) | \(String(format: "%.1f", run.result.cpu)) | "
                + "\(String(format: "%.0f", Double(options.users) / run.result.wall)) | \(String(format: "%.0f", rate)) | "
                + "\(String(format: "%.0f", 100 * rate / both.verify)) % | \(String(format: "%.0f", perCPU)) | "
                + "\(String(format: "%.0f", 100 * perCPU / single.verify)) % | \(String(format: "%.0f", run.result.peakMiB)) | \(run.load) |")
    }
}

/// How many tokens the signed population holds: its transactions and renewal infos, drawn
/// without signing.
func signedTokenCount(_ options: BenchOptions) throws -> Int {
    let population = SyntheticPopulation(catalog: try CommonOptions.catalog(options.catalog))
    var random = SeededGenerator(seed: options.seed)
    var count = 0
    for user in 0..<options.users {
        let drawn = population.signedUser(user: user, bundleId: "com.example.magazine", random: &random)
        count += drawn.transactions.count + drawn.renewals.count
    }
    return count
}

/// OpenSSL's ES256 (P-256) sign and verify rates over `seconds`, on `cores` processes at once
/// (their sum), with the load average before the run; its output is kept in `work`.
func openSSLSpeed(cores: Int, seconds: Int, work: String) -> (sign: Double, verify: Double, load: String) {
    let load = loadAverage()
    let output = work + "/openssl-speed-\(cores).txt"
    let arguments = ["openssl", "speed", "-seconds", String(seconds)] + (cores > 1 ? ["-multi", String(cores)] : []) + ["ecdsap256"]
    let result = measure(arguments, stdoutPath: output)
    guard result.status == 0, let text = try? String(contentsOfFile: output, encoding: .utf8),
        let line = text.split(separator: "\n").last(where: { $0.contains("ecdsa (nistp256)") })
    else { fail("openssl speed ecdsap256 failed (status \(result.status)): see \(output)") }
    let numbers = line.split(separator: " ").compactMap { Double($0) }
    guard numbers.count >= 2 else { fail("cannot read openssl speed's rates from '\(line)'") }
    return (numbers[numbers.count - 2], numbers[numbers.count - 1], load)
}

/// The 1-, 5- and 15-minute load averages, as `uptime` shows them.
func loadAverage() -> String {
    var loads = [Double](repeating: 0, count: 3)
    guard getloadavg(&loads, 3) == 3 else { return "?" }
    return loads.map { String(format: "%.2f", $0) }.joined(separator: " ")
}
