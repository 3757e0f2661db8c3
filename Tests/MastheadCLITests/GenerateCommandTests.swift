import Foundation
import MastheadJSON
import Testing

/// `masthead generate`: deterministic, readable by `audit`, varied.
struct GenerateCommandTests {
    @Test func sameSeed_sameBytes_otherSeed_otherBytes_andAuditReadsEveryLine() throws {
        let first = try Tool.run(["generate", "--catalog", "Catalog/the-monthly", "--users", "300", "--seed", "7"])
        let again = try Tool.run(["generate", "--catalog", "Catalog/the-monthly", "--users", "300", "--seed", "7"])
        let other = try Tool.run(["generate", "--catalog", "Catalog/the-monthly", "--users", "300", "--seed", "8"])
        #expect(first.status == 0)
        #expect(first.output == again.output)
        #expect(first.output != other.output)
        let lines = first.output.split(separator: "\n")
        #expect(lines.count == 300)
        // Shapes of R2 appear: sandbox receipts, refunds, upgrades, every date shape.
        for fragment in [#""environment":"Sandbox""#, #""cancellation_date"#, #""is_upgraded""#, #""purchase_date_ms":1"#,
                         #""purchase_date_ms":"1"#, #"Etc/GMT""#, #""is_in_billing_retry_period":"1""#, "com.example.pass", "com.example.issue"] {
            #expect(first.output.contains(fragment), "\(fragment)")
        }
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("population.jsonl")
        try Data(first.output.utf8).write(to: input)
        let audit = try Tool.run(["audit", "--catalog", "Catalog/the-monthly", "--receipts", input.path, "--at", "2021-06-30T00:00:00Z"])
        #expect(audit.status == 0)
        #expect(Tool.summaryRow(audit.errors, "users") == ["300"])
        #expect(Tool.summaryRow(audit.errors, "rejected lines") == ["0"])
    }

    static let signing = [
        "--signing-key", "Tests/Fixtures/test-chain/leaf-key.pem", "--signing-chain", "Tests/Fixtures/test-chain/chain.pem",
    ]

    /// Signed lines: the same bytes for the same seed (RFC 6979 nonces), the users of the
    /// receipts of that seed, every token carrying the chain and the bundle id asked for.
    @Test func signed_sameSeed_sameBytes_sameUsersAsTheReceipts() throws {
        let arguments = ["generate", "--catalog", "Catalog/the-monthly", "--users", "30", "--seed", "7", "--signed"] + Self.signing
        let first = try Tool.run(arguments + ["--bundle-id", "com.example.other"])
        #expect(first.status == 0, "\(first.errors)")
        #expect(try Tool.run(arguments + ["--bundle-id", "com.example.other"]).output == first.output)
        let receipts = try Tool.run(["generate", "--catalog", "Catalog/the-monthly", "--users", "30", "--seed", "7"]).output.split(separator: "\n")
        let lines = first.output.split(separator: "\n")
        #expect(lines.count == 30)
        var withTokens = 0
        for (line, receipt) in zip(lines, receipts) {
            let root = try JSONDocument(parsing: Array(line.utf8)).root
            let receiptRoot = try JSONDocument(parsing: Array(receipt.utf8)).root
            #expect(root.member("user_id")?.string == receiptRoot.member("user_id")?.string)
            let transactions = Array(try #require(root.member("signedTransactions")).elements)
            let tokens = transactions + Array(try #require(root.member("signedRenewalInfos")).elements)
            for token in tokens {
                let parts = try #require(token.string).split(separator: ".")
                #expect(parts.count == 3)
                let header = try #require(Self.base64URL(parts[0]))
                #expect(header.contains(#""alg":"ES256""#))
                #expect(Array(try #require(JSONDocument(parsing: Array(header.utf8)).root.member("x5c")).elements).count == 3)
            }
            guard let first = transactions.first else { continue }  // a user who bought nothing
            withTokens += 1
            let payload = try #require(first.string.flatMap { Self.base64URL($0.split(separator: ".")[1]) })
            #expect(payload.contains(#""bundleId":"com.example.other""#))
        }
        #expect(withTokens > 20)
    }

    /// A small signed population audits to the same results as the receipts of its seed, verified
    /// against the test root and trusted as verified alike; only the summary's signed-data row differs.
    @Test func signed_auditsToTheSameResultsAsTheReceipts() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let signed = folder.appendingPathComponent("signed.jsonl")
        let receipts = folder.appendingPathComponent("receipts.jsonl")
        let generate = ["generate", "--catalog", "Catalog/the-monthly", "--users", "150", "--seed", "12"]
        #expect(try Tool.run(generate + ["--signed", "--output", signed.path] + Self.signing).status == 0)
        #expect(try Tool.run(generate + ["--output", receipts.path]).status == 0)
        let audit = ["audit", "--catalog", "Catalog/the-monthly", "--at", "2020-09-30T00:00:00Z", "--at", "2021-06-30T00:00:00Z"]
        let fromReceipts = try Tool.run(audit + ["--receipts", receipts.path])
        let verified = try Tool.run(audit + ["--receipts", signed.path, "--root-certificate", "Tests/Fixtures/test-chain/root.pem"])
        let trusted = try Tool.run(audit + ["--receipts", signed.path, "--trust-verified"])
        #expect(fromReceipts.status == 0)
        #expect(verified.status == 0, "\(verified.errors)")
        #expect(trusted.status == 0, "\(trusted.errors)")
        #expect(!fromReceipts.output.isEmpty)
        #expect(verified.output == fromReceipts.output)
        #expect(trusted.output == fromReceipts.output)
        #expect(Tool.summaryRow(verified.errors, "users") == ["150"])
        #expect(Tool.summaryRow(verified.errors, "rejected lines") == ["0"])
        #expect(Tool.summaryRow(verified.errors, "signed data")?.first?.contains("every signature verified") == true)
        func withoutSignedRow(_ text: String) -> [Substring] { text.split(separator: "\n").filter { !$0.contains("signed data") && !$0.contains(" s ") } }
        #expect(withoutSignedRow(verified.errors) == withoutSignedRow(fromReceipts.errors))
    }

    static func base64URL(_ part: Substring) -> String? {
        var text = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        text += String(repeating: "=", count: (4 - text.count % 4) % 4)
        return Data(base64Encoded: text).map { String(decoding: $0, as: UTF8.self) }
    }

    @Test func signed_usage() throws {
        let base = ["generate", "--catalog", "Catalog/the-monthly", "--users", "2"]
        let withoutKey = try Tool.run(base + ["--signed", "--signing-chain", "Tests/Fixtures/test-chain/chain.pem"])
        #expect(withoutKey.status == 64)
        #expect(withoutKey.errors == "masthead: generate: --signed needs --signing-key FILE and --signing-chain FILE\n")
        let notSigned = try Tool.run(base + Self.signing)
        #expect(notSigned.status == 64)
        #expect(notSigned.errors == "masthead: generate: --signing-key is for --signed data\n")
        let rootOnly = try Tool.run(base + ["--signed", "--signing-key", "Tests/Fixtures/test-chain/leaf-key.pem", "--signing-chain", "Tests/Fixtures/test-chain/root.pem"])
        #expect(rootOnly.status == 1)
        #expect(rootOnly.errors.contains("--signing-chain Tests/Fixtures/test-chain/root.pem holds 1 certificate(s); signed data carries 3"))
        #expect(rootOnly.output == "")
        let otherKey = try Tool.run(base + ["--signed", "--signing-key", "Tests/Fixtures/test-chain/other-key.pem", "--signing-chain", "Tests/Fixtures/test-chain/chain.pem"])
        #expect(otherKey.status == 1)
        #expect(otherKey.errors.contains("it is not the key of the chain's leaf certificate"))
        #expect(otherKey.output == "")
    }

    /// With --ending-revocations, signed users carry prorated refunds (with their share) and
    /// Family Sharing revocations beside full refunds (R5.3), the same bytes for the same seed;
    /// without it every refund is a full one. They verify and audit, as the same users as the
    /// receipts of the same seed and flag (where every refund is a full one).
    @Test func signed_endingRevocations_drawProratedRefundsAndFamilyRevocations_R5_3() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let generate = ["generate", "--catalog", "Catalog/the-monthly", "--users", "200", "--seed", "11"]
        let signed = folder.appendingPathComponent("signed.jsonl")
        let run = try Tool.run(generate + ["--signed", "--ending-revocations", "--output", signed.path] + Self.signing)
        #expect(run.status == 0, "\(run.errors)")
        let output = try String(contentsOf: signed, encoding: .utf8)
        #expect(try Tool.run(generate + ["--signed", "--ending-revocations"] + Self.signing).output == output)
        func revocationTypes(_ lines: String) throws -> [String: Int] {
            var types: [String: Int] = [:]
            for line in lines.split(separator: "\n") {
                let root = try JSONDocument(parsing: Array(line.utf8)).root
                for token in try #require(root.member("signedTransactions")).elements {
                    let payload = try #require(token.string.flatMap { Self.base64URL($0.split(separator: ".")[1]) })
                    let fields = try JSONDocument(parsing: Array(payload.utf8)).root
                    if let type = fields.member("revocationType")?.string {
                        types[type, default: 0] += 1
                        if type == "REFUND_PRORATED" { #expect((0...100_000).contains(fields.member("revocationPercentage")?.int64 ?? -1)) }
                    }
                }
            }
            return types
        }
        let types = try revocationTypes(output)
        #expect(types["REFUND_FULL", default: 0] > 0 && types["REFUND_PRORATED", default: 0] > 0 && types["FAMILY_REVOKE", default: 0] > 0, "\(types)")
        let plain = try revocationTypes(try Tool.run(generate + ["--signed"] + Self.signing).output)
        #expect(Array(plain.keys) == ["REFUND_FULL"], "\(plain)")
        // Every line verifies, as the same users as the receipts of the seed and flag (grants too).
        let receipts = folder.appendingPathComponent("receipts.jsonl")
        let receiptGrants = folder.appendingPathComponent("grants.csv")
        let unsigned = try Tool.run(generate + ["--ending-revocations", "--output", receipts.path, "--grants", receiptGrants.path])
        #expect(unsigned.status == 0, "\(unsigned.errors)")
        #expect(try String(contentsOf: receiptGrants, encoding: .utf8).split(separator: "\n").count > 200)
        let audit = ["audit", "--catalog", "Catalog/the-monthly", "--at", "2021-06-30T00:00:00Z"]
        let verified = try Tool.run(audit + ["--receipts", signed.path, "--root-certificate", "Tests/Fixtures/test-chain/root.pem"])
        #expect(verified.status == 0, "\(verified.errors)")
        #expect(Tool.summaryRow(verified.errors, "users") == ["200"])
        #expect(Tool.summaryRow(verified.errors, "rejected lines") == ["0"])
        let fromReceipts = try Tool.run(audit + ["--receipts", receipts.path])
        let userIds = { (output: String) in try output.split(separator: "\n").map { try JSONDocument(parsing: Array($0.utf8)).root.member("user_id")?.string } }
        #expect(try userIds(verified.output) == (try userIds(fromReceipts.output)))
    }

    /// With --ending-revocations, the grants describe what the signed data gives (R5.3): the issues
    /// a prorated refund or a Family Sharing revocation leaves a reader, which the receipts of
    /// the seed (full refunds) take away, are served, but for the few the grants leave out.
    @Test func signed_endingRevocations_grantsDescribeTheSignedData_R5_3() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let signed = folder.appendingPathComponent("signed.jsonl")
        let receipts = folder.appendingPathComponent("receipts.jsonl")
        let grants = folder.appendingPathComponent("grants.csv")
        let at = "2021-06-30T23:59:59Z"
        let generate = ["generate", "--catalog", "Catalog/the-monthly", "--users", "400", "--seed", "11"]
        let run = try Tool.run(generate + ["--signed", "--ending-revocations", "--output", signed.path, "--grants", grants.path, "--grants-at", at] + Self.signing)
        #expect(run.status == 0, "\(run.errors)")
        #expect(try Tool.run(generate + ["--ending-revocations", "--output", receipts.path]).status == 0)
        /// Each (user, publication, issue) an audit of `file` finds readable at `at`.
        func readable(_ file: URL, _ options: [String] = []) throws -> Set<String> {
            let audit = try Tool.run(["audit", "--catalog", "Catalog/the-monthly", "--receipts", file.path, "--at", at] + options)
            #expect(audit.status == 0, "\(audit.errors)")
            var found: Set<String> = []
            for line in audit.output.split(separator: "\n") {
                let root = try JSONDocument(parsing: Array(line.utf8)).root
                let user = root.member("user_id")?.string ?? "", publication = root.member("publication")?.string ?? ""
                for issue in root.member("readable").map({ Array($0.elements) }) ?? [] { found.insert("\(user),\(publication),\(issue.string ?? "")") }
            }
            return found
        }
        let onlySigned = try readable(signed, ["--trust-verified"]).subtracting(try readable(receipts))
        let served = Set(try String(contentsOf: grants, encoding: .utf8).split(separator: "\n").map { $0.split(separator: ",").prefix(3).joined(separator: ",") })
        #expect(!onlySigned.isEmpty)
        #expect(onlySigned.intersection(served).count * 10 >= onlySigned.count * 9, "\(onlySigned.subtracting(served).sorted()) of \(onlySigned.count)")
    }

    @Test func usage() throws {
        #expect(try Tool.run(["generate", "--catalog", "Catalog/the-monthly"]).status == 64)
        #expect(try Tool.run(["generate", "--catalog", "Catalog/the-monthly", "--users", "x"]).status == 64)
        #expect(try Tool.run(["generate", "--help"]).output.hasPrefix("Usage: masthead generate"))
    }

    /// Grants for a demo: the same receipts as without them, and an audit against them finds some
    /// of every kind at every instant (a few leaks, a few issues left out, streaming readers who
    /// lapsed still holding what they were served) and no grant it cannot place.
    @Test func grants_describeMostEntitlements_withAFewMistakes() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let users = folder.appendingPathComponent("users.jsonl")
        let grants = folder.appendingPathComponent("grants.csv")
        let instants = ["2021-03-31T23:59:59Z", "2021-06-30T23:59:59Z"]
        let run = try Tool.run([
            "generate", "--catalog", "Catalog/the-monthly", "--users", "2000", "--seed", "5", "--output", users.path,
            "--grants", grants.path,
        ] + instants.flatMap { ["--grants-at", $0] })
        #expect(run.status == 0)
        let plain = try Tool.run(["generate", "--catalog", "Catalog/the-monthly", "--users", "2000", "--seed", "5"])
        #expect(try String(contentsOf: users, encoding: .utf8) == plain.output)
        let rows = try String(contentsOf: grants, encoding: .utf8).split(separator: "\n")
        #expect(rows.first == "user_id,publication,issue_id,granted_at")
        let audit = try Tool.run([
            "audit", "--catalog", "Catalog/the-monthly", "--receipts", users.path, "--grants", grants.path,
            "--output", folder.appendingPathComponent("audit.jsonl").path,
        ] + instants.flatMap { ["--at", $0] })
        #expect(audit.status == 0)
        func counts(_ label: String) -> [Int] { (Tool.summaryRow(audit.errors, label) ?? []).map { Int($0) ?? -1 } }
        let over = counts("overGranted")
        let under = counts("underGranted")
        let held = counts("heldAfterEntitlementEnded")
        // About 3 % of 2,000 users served one issue they could not read then, by the last instant.
        #expect(over.count == 2 && over[0] > 0 && (20...100).contains(over[1]), "\(over)")
        // About 2 % of the served issues left out.
        #expect(under.count == 2 && under.allSatisfy { $0 > 0 && $0 * 20 < rows.count }, "\(under) of \(rows.count)")
        #expect(held.count == 2 && held.allSatisfy { $0 > 0 }, "\(held)")
        #expect(Tool.summaryRow(audit.errors, "unknown grants") == ["users 0, publications 0, issues 0"])
        // Decided on every core, written in input order: the same bytes every time.
        let again = try Tool.run([
            "audit", "--catalog", "Catalog/the-monthly", "--receipts", users.path, "--grants", grants.path,
        ] + instants.flatMap { ["--at", $0] })
        #expect(again.output == (try String(contentsOf: folder.appendingPathComponent("audit.jsonl"), encoding: .utf8)))
        #expect(again.errors == audit.errors)
    }
}
