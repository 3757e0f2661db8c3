import Foundation
import Glibc

/// Database: writes a generated population as `masthead generate` does, stores it with
/// `masthead import` (each user's receipt stored and linked as the service stores posted ones,
/// group-committed) beside the `sqlite3` shell loading the same rows (``sqliteShellLoad(of:work:)``),
/// then times `masthead audit --database` against `masthead audit --receipts` on the same users.
func runDatabaseBenchmark(_ options: BenchOptions, masthead: String) throws {
    let receipts = options.work + "/database-\(options.users)-\(options.seed).jsonl"
    let database = options.work + "/database-\(options.users)-\(options.seed).sqlite"
    for suffix in ["", "-wal", "-shm"] { unlink(database + suffix) }
    _ = try writePopulation(options, to: receipts)
    let imported = measure(
        [masthead, "import", "--catalog", options.catalog, "--receipts", receipts, "--database", database], stdoutPath: options.work + "/import.txt")
    guard imported.status == 0 else { fail("masthead import exited with status \(imported.status)") }
    print("stored \(options.users) users in \(String(format: "%.1f", imported.wall)) s (masthead import): \(database)")
    printImportAgainstShell("masthead import", imported, shell: sqliteShellLoad(of: database, work: options.work), count: options.users, unit: "users")

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
