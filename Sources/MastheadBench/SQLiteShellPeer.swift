import Foundation
import Glibc

/// The floor SQLite itself sets on this disk for storing what an import stored: the rows of
/// `database` written out by the `sqlite3` shell as an SQL script (`.dump`: the schema, every row
/// as an `INSERT`, the indexes, in one transaction), then timed as the shell runs that script
/// into a new database kept as the service keeps its own (WAL, `synchronous = FULL`).
func sqliteShellLoad(of database: String, work: String) -> Measurement {
    let script = database + ".dump.sql"
    let copy = database + ".shell.sqlite"
    for suffix in ["", "-wal", "-shm"] { unlink(copy + suffix) }
    let dumped = measure(["sqlite3", database, ".dump"], stdoutPath: script, stderrPath: work + "/sqlite3-dump-errors.txt")
    guard dumped.status == 0 else { fail("sqlite3 .dump exited with status \(dumped.status) (is the sqlite3 shell installed?)") }
    let loaded = measure(
        ["sqlite3", copy, "PRAGMA journal_mode = WAL", "PRAGMA synchronous = FULL", ".read \(script)"], stdoutPath: "/dev/null",
        stderrPath: work + "/sqlite3-load-errors.txt")
    guard loaded.status == 0 else { fail("sqlite3 .read \(script) exited with status \(loaded.status): see \(work)/sqlite3-load-errors.txt") }
    return loaded
}

/// Prints an import's rate beside the `sqlite3` shell's load of the same rows, from the same run,
/// and their ratio by wall time and by CPU time (on a busy machine the CPU figure moves less).
func printImportAgainstShell(_ name: String, _ imported: Measurement, shell: Measurement, count: Int, unit: String) {
    func row(_ name: String, _ result: Measurement) -> String {
        "| \(name) | \(String(format: "%.2f", result.wall)) | \(String(format: "%.2f", result.cpu)) | "
            + "\(String(format: "%.0f", Double(count) / result.wall)) | \(String(format: "%.0f", Double(count) / result.cpu)) |"
    }
    print("")
    print("| store | wall s | cpu s | \(unit)/s | \(unit) per CPU second |")
    print("|---|---|---|---|---|")
    print(row(name, imported))
    print(row("sqlite3 shell: the same rows from its .dump, one transaction", shell))
    print("\(name) against the sqlite3 shell: " + String(format: "%.2f× by wall time, %.2f× by CPU time", shell.wall / imported.wall, shell.cpu / imported.cpu))
}
