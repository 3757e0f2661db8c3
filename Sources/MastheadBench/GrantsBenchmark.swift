import Foundation
import Glibc

/// Grants: writes N print-subscription grants as a CSV export (one user each, every tenth
/// streaming with a window, every fifth open-ended; the same file for the same N and seed), then
/// times `masthead grants import` into a new SQLite database beside the `sqlite3` shell loading
/// the same rows (``sqliteShellLoad(of:work:)``), and the same file again (every grant unchanged).
func runGrantsBenchmark(_ options: BenchOptions, masthead: String) throws {
    let file = options.work + "/grants-\(options.users)-\(options.seed).csv"
    let database = options.work + "/grants-\(options.users)-\(options.seed).sqlite"
    for suffix in ["", "-wal", "-shm"] { unlink(database + suffix) }
    try writeGrants(options, to: file)
    let arguments = [masthead, "grants", "import", file, "--catalog", options.catalog, "--database", database]
    let first = measure(arguments, stdoutPath: options.work + "/grants-import.txt")
    guard first.status == 0 else { fail("masthead grants import exited with status \(first.status)") }
    let shell = sqliteShellLoad(of: database, work: options.work)
    let again = measure(arguments, stdoutPath: options.work + "/grants-import-again.txt")
    guard again.status == 0 else { fail("masthead grants import (again) exited with status \(again.status)") }
    func row(_ name: String, _ result: Measurement, _ outputFile: String) -> String {
        let summary = (try? String(contentsOfFile: options.work + "/" + outputFile, encoding: .utf8))?.split(separator: "\n").first ?? ""
        return "| \(name) | \(String(format: "%.2f", result.wall)) | \(String(format: "%.2f", result.cpu)) | "
            + "\(String(format: "%.0f", Double(options.users) / result.wall)) | \(String(format: "%.0f", result.peakMiB)) | \(summary) |"
    }
    print("")
    print("| run | wall s | cpu s | grants/s | peak MiB | output |")
    print("|---|---|---|---|---|---|")
    print(row("masthead grants import, new database", first, "grants-import.txt"))
    print(row("the same file again", again, "grants-import-again.txt"))
    printImportAgainstShell("masthead grants import", first, shell: shell, count: options.users, unit: "grants")
}

/// Writes the grants file: a header, then one row per grant.
private func writeGrants(_ options: BenchOptions, to path: String) throws {
    guard FileManager.default.createFile(atPath: path, contents: nil), let output = FileHandle(forWritingAtPath: path) else { fail("cannot write \(path)") }
    defer { try? output.close() }
    var text = "grantId,userId,publications,access,start,end,source,window\n"
    for index in 0..<options.users {
        let number = Int(truncatingIfNeeded: options.seed &* 1_000_003) &+ index
        let month = 1 + number % 12
        let start = "2020-\(month < 10 ? "0" : "")\(month)-01"
        let end = index % 5 == 0 ? "" : "2021-\(month < 10 ? "0" : "")\(month)-01"
        let streaming = index % 10 == 3
        text += "print-\(options.seed)-\(index),reader-\(index),the-monthly,\(streaming ? "streaming" : "archive"),\(start),\(end),print,\(streaming ? "6" : "")\n"
        if text.utf8.count >= 1 << 20 {
            try output.write(contentsOf: Data(text.utf8))
            text = ""
        }
    }
    try output.write(contentsOf: Data(text.utf8))
}
