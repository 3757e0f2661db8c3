import Foundation
import Glibc
import Masthead
import MastheadFormats
import MastheadJSON
import MastheadSQLite
import MastheadStorage

/// Database: stores a generated population as the service would (each user's receipt saved and
/// linked), then times `masthead audit --database` against `masthead audit --receipts` on the
/// same users.
func runDatabaseBenchmark(_ options: Options, masthead: String) throws {
    let catalogFile = options.catalog + "/catalog.json"
    let catalog = try CatalogDecoder().decode(Array(try Data(contentsOf: URL(fileURLWithPath: catalogFile))), file: catalogFile)
    let receipts = options.work + "/database-\(options.users)-\(options.seed).jsonl"
    let database = options.work + "/database-\(options.users)-\(options.seed).sqlite"
    for suffix in ["", "-wal", "-shm"] { unlink(database + suffix) }
    let started = seconds()
    var random = SeededGenerator(seed: options.seed)
    let population = SyntheticPopulation(catalog: catalog, start: Instant(milliseconds: 1_577_836_800_000))
    let decoder = ReceiptDecoder(catalog: catalog)
    guard let file = fopen(receipts, "wb") else { fail("cannot write \(receipts)") }
    let store = try SQLiteStore(path: database)
    var user = 0
    while user < options.users {
        // A thousand users per transaction, as the service's group commit would write them.
        try store.database.inTransaction {
            for _ in 0..<min(1000, options.users - user) {
                var line = population.line(user: user, random: &random)
                let history = try decoder.decode(try JSONDocument(parsing: line).root.member("receipt")!, path: "$.receipt").history
                try store.save(transactions: history.transactions, renewals: history.renewals)
                _ = try store.link(userId: "user-\(user)", transactions: history.transactions, latestReceipt: nil, restore: .transfer, now: Instant(milliseconds: 0))
                line.append(0x0A)
                fwrite(line, 1, line.count, file)
                user += 1
            }
        }
    }
    fclose(file)
    try store.database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    print("stored \(options.users) users in \(String(format: "%.1f", seconds() - started)) s: \(database)")

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
