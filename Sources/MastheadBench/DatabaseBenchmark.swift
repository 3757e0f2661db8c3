import Dispatch
import Foundation
import Glibc
import Masthead
import MastheadCLI
import MastheadFormats
import MastheadJSON
import MastheadService
import Synchronization

/// Database: stores a generated population through the service (each user's receipt posted and
/// linked, as `POST /v1/users/{id}/receipts` does, group-committed), then times
/// `masthead audit --database` against `masthead audit --receipts` on the same users.
func runDatabaseBenchmark(_ options: BenchOptions, masthead: String) throws {
    let catalog = try CommonOptions.catalog(options.catalog)
    let receipts = options.work + "/database-\(options.users)-\(options.seed).jsonl"
    let database = options.work + "/database-\(options.users)-\(options.seed).sqlite"
    for suffix in ["", "-wal", "-shm"] { unlink(database + suffix) }
    let started = SystemClock.seconds()
    guard let file = fopen(receipts, "wb") else { fail("cannot write \(receipts)") }
    try store(options, catalog: catalog, database: database, receiptsFile: file)
    fclose(file)
    print("stored \(options.users) users in \(String(format: "%.1f", SystemClock.seconds() - started)) s: \(database)")

    let at = "2021-06-30T00:00:00Z"
    let fromDatabase = measure([masthead, "audit", "--catalog", options.catalog, "--database", database, "--at", at], stdoutPath: options.work + "/database-audit.jsonl")
    let fromReceipts = measure([masthead, "audit", "--catalog", options.catalog, "--receipts", receipts, "--at", at], stdoutPath: options.work + "/receipts-audit.jsonl")
    func row(_ name: String, _ result: Measurement) -> String {
        "| \(name) | \(String(format: "%.2f", result.wall)) | \(String(format: "%.2f", result.cpu)) | "
            + "\(String(format: "%.0f", Double(options.users) / result.wall)) | \(String(format: "%.0f", result.peakMiB)) | \(result.status) |"
    }
    print("")
    print("| run | wall s | cpu s | users/s | peak MiB | exit |")
    print("|---|---|---|---|---|---|")
    print(row("masthead audit --database", fromDatabase))
    print(row("masthead audit --receipts (same users)", fromReceipts))
}

/// Posts every generated user's receipt to a service on `database`, a thousand at a time so
/// the group commit writes them together, and writes the same lines to `receiptsFile`. The
/// service is closed (and the database checkpointed) when it returns.
private func store(_ options: BenchOptions, catalog: Catalog, database: String, receiptsFile: UnsafeMutablePointer<FILE>) throws {
    var configuration = ServiceConfiguration()
    configuration.databasePath = database
    let service = try EntitlementService(configuration: configuration, catalog: catalog, clock: { SystemClock.now() })
    defer { service.close() }
    var random = SeededGenerator(seed: options.seed)
    let population = SyntheticPopulation(catalog: catalog)
    let decoder = ReceiptDecoder(catalog: catalog)
    let failures = Mutex<[String]>([])
    var user = 0
    while user < options.users {
        let posted = DispatchGroup()
        for _ in 0..<min(configuration.maxCommitBatch, options.users - user) {
            var line = population.line(user: user, random: &random)
            let receipt = try decoder.decode(try JSONDocument(parsing: line).root.member("receipt")!, path: "$.receipt")
            let userId = "user-\(user)"
            posted.enter()
            service.postReceipt(userId: userId, receipt: receipt, latestReceipt: nil) { outcome in
                if case .failed(let error) = outcome { failures.withLock { $0.append("\(userId): \(error)") } }
                posted.leave()
            }
            line.append(0x0A)
            fwrite(line, 1, line.count, receiptsFile)
            user += 1
        }
        posted.wait()
        if let failure = failures.withLock({ $0.first }) { fail("storing \(failure)") }
    }
}
