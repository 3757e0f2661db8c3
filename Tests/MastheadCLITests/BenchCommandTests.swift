import Foundation
import Testing

/// `masthead-bench` as a user meets it: help instead of a benchmark, usage errors for bad
/// options, and a small database run that stores its population with `masthead import`.
struct BenchCommandTests {
    static func bench(_ arguments: [String]) throws -> Tool.Outcome { try Tool.runProgram(Tool.benchBinary.path, arguments) }

    @Test func help_isPrinted_insteadOfRunningABenchmark() throws {
        let help = try Self.bench(["--help"])
        #expect(help.status == 0)
        #expect(help.errors == "")
        #expect(help.output.hasPrefix("masthead-bench: measure the release build"))
        for command in ["  audit ", "  database ", "  service ", "  scale "] { #expect(help.output.contains(command)) }
        #expect(try Self.bench(["help"]).output == help.output)
        #expect(try Self.bench([]).output == help.output)
        let audit = try Self.bench(["help", "audit"])
        #expect(audit.status == 0)
        #expect(audit.output.hasPrefix("Usage: masthead-bench audit [options]\n"))
        #expect(audit.output.contains("  --users N "))
        #expect(try Self.bench(["audit", "--help"]).output == audit.output)
    }

    static let mistakes: [(arguments: [String], message: String)] = [
        (["audit", "--users", "many"], "masthead-bench: audit: --users must be a whole number of at least 1, not 'many'\n"),
        (["audit", "--users", "0"], "masthead-bench: audit: --users must be a whole number of at least 1, not '0'\n"),
        (["audit", "--seed", "-1"], "masthead-bench: audit: --seed must be a whole number from 0 to 18446744073709551615, not '-1'\n"),
        (["audit", "--runs", "2x"], "masthead-bench: audit: --runs must be a whole number of at least 1, not '2x'\n"),
        (["service", "--loops", "0"], "masthead-bench: service: --loops must be a whole number from 1 to 64, not '0'\n"),
        (["service", "--seconds", "ten"], "masthead-bench: service: --seconds must be a whole number of at least 1, not 'ten'\n"),
        (["service", "--users", "5"], "masthead-bench: service: unknown option '--users' (see 'masthead-bench service --help')\n"),
        (["scale", "--cached-users", "0"], "masthead-bench: scale: --cached-users must be a whole number of at least 1, not '0'\n"),
        (["database", "--user", "5"], "masthead-bench: database: unknown option '--user', did you mean '--users'? (see 'masthead-bench database --help')\n"),
        (["audti"], "masthead-bench: unknown command 'audti', did you mean 'audit'? (see 'masthead-bench --help')\n"),
        (["--users", "5"], "masthead-bench: unknown command '--users' (see 'masthead-bench --help')\n"),
    ]

    @Test(arguments: mistakes)
    func badOptions_areUsageErrors_beforeAnythingRuns(mistake: (arguments: [String], message: String)) throws {
        let outcome = try Self.bench(mistake.arguments)
        #expect(outcome.status == 64)
        #expect(outcome.errors == mistake.message)
        #expect(outcome.output == "")
    }

    /// The database benchmark on a few users: the population is the one `masthead generate`
    /// writes, stored by `masthead import`, and the audit of the database finds every user.
    @Test func database_storesTheGeneratedPopulationWithImport() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = try Self.bench(["database", "--users", "40", "--seed", "3", "--work", folder.path])
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.hasPrefix("stored 40 users in "))
        #expect(run.output.contains(" s (masthead import): "))
        #expect(try String(contentsOf: folder.appendingPathComponent("import.txt"), encoding: .utf8).hasPrefix("import: 40 line(s) stored in "))
        let generated = try Tool.run(["generate", "--catalog", "Catalog/the-monthly", "--users", "40", "--seed", "3"])
        let stored = try String(contentsOf: folder.appendingPathComponent("database-40-3.jsonl"), encoding: .utf8)
        #expect(stored == generated.output)
        let fromDatabase = try String(contentsOf: folder.appendingPathComponent("database-audit.jsonl"), encoding: .utf8)
        let fromReceipts = try String(contentsOf: folder.appendingPathComponent("receipts-audit.jsonl"), encoding: .utf8)
        #expect(!fromReceipts.isEmpty)
        #expect(fromDatabase.split(separator: "\n").sorted() == fromReceipts.split(separator: "\n").sorted())
        // Checkpointed once stored: the audit reads the database file, not a long WAL.
        let wal = try? FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent("database-40-3.sqlite-wal").path)
        #expect((wal?[.size] as? Int ?? 0) == 0)
    }

    /// The grants benchmark on a few grants: the file is imported, every grant added, then again,
    /// every grant unchanged.
    @Test func grants_importsTheGeneratedFile_thenFindsItUnchanged() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = try Self.bench(["grants", "--users", "30", "--seed", "2", "--work", folder.path])
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.contains("| grants import: 30 added, 0 changed, 0 unchanged, 0 revoked, 0 rejected in "))
        #expect(run.output.contains("| grants import: 0 added, 0 changed, 30 unchanged, 0 revoked, 0 rejected in "))
        let file = try String(contentsOf: folder.appendingPathComponent("grants-30-2.csv"), encoding: .utf8)
        #expect(file.split(separator: "\n").count == 31)
    }

    /// The signed audit benchmark on a few users: the population `masthead generate --signed`
    /// writes with the test chain, OpenSSL's rates on one core and both, and the audit verified
    /// and trusted, every line read.
    @Test func auditSigned_setsTheAuditBesideOpenSSL() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = try Self.bench(["audit", "--signed", "--users", "20", "--seed", "4", "--seconds", "1", "--work", folder.path])
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.contains("20 users, "))
        for row in ["| openssl speed -seconds 1 ecdsap256 (one core) | ", "| openssl speed -seconds 1 -multi 2 ecdsap256 (both cores) | ",
                    "| verified | ", "| --trust-verified | "] {
            #expect(run.output.contains(row), "\(row)")
        }
        let generated = try Tool.run(
            ["generate", "--catalog", "Catalog/the-monthly", "--users", "20", "--seed", "4", "--signed"] + GenerateCommandTests.signing)
        #expect(try String(contentsOf: folder.appendingPathComponent("signed-20-4.jsonl"), encoding: .utf8) == generated.output)
        let summary = try String(contentsOf: folder.appendingPathComponent("signed-audit-summary.txt"), encoding: .utf8)
        #expect(Tool.summaryRow(summary, "users") == ["20"])
        #expect(Tool.summaryRow(summary, "rejected lines") == ["0"])
    }
}
