import Foundation
import Testing

/// `masthead audit` on lines of signed data: verified, refused, trusted as verified, and without an app.
struct SignedAuditCommandTests {
    /// Lines: alice signed, bob signed with a tampered token, carol a receipt, dave both.
    static func input(in folder: URL) throws -> String {
        let (transactions, renewals) = try SignedData.table61()
        var tampered = transactions
        tampered[1] = SignedData.tampered(tampered[1])
        let receipt = try AuditCommandTests.receiptLine("carol", "table-6-1")
        let both = #"{"user_id":"dave","receipt":{"status":0},"# + SignedData.document(transactions: transactions).dropFirst()
        return try SignedData.write(
            [
                SignedData.line("alice", transactions: transactions, renewals: renewals), SignedData.line("bob", transactions: tampered, renewals: renewals),
                receipt, both,
            ].joined(separator: "\n"), "in.jsonl", in: folder)
    }

    static func audit(_ input: String, _ options: [String], catalog: String = "Catalog/the-monthly") throws -> Tool.Outcome {
        try Tool.run(["audit", "--catalog", catalog, "--receipts", input, "--at", "2020-07-02T00:00:00Z"] + options)
    }

    static let readable = #""status":"active","readable":["2020-02","2020-03","2020-04","2020-06","2020-07"]}"#

    @Test func signedLines_verified_tamperedAndMixedLinesReported() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try Self.input(in: folder)
        let outcome = try Self.audit(input, SignedData.trustTestChain)
        #expect(outcome.status == 1)
        #expect(outcome.output == """
            {"user_id":"alice","publication":"the-monthly",\(Self.readable)
            {"user_id":"carol","publication":"the-monthly",\(Self.readable)

            """)
        let messages = outcome.errors.split(separator: "\n").map(String.init)
        #expect(messages[0] == "\(input):2: $.signedTransactions[1]: signature refused: invalid ES256 signature: "
            + "it does not verify with the leaf certificate's key over the token's header and payload")
        #expect(messages[1] == "\(input):4: invalid value an object at $.receipt (line 1): "
            + "expected no receipt beside signedTransactions or signedRenewalInfos (a line carries one or the other)")
        #expect(Tool.summaryRow(outcome.errors, "rejected lines") == ["2"])
        #expect(Tool.summaryRow(outcome.errors, "signed data") == ["1 user(s), every signature verified"])
    }

    @Test func trustVerified_skipsSignatures_andSaysSo() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try Self.input(in: folder)
        let report = folder.appendingPathComponent("report.html")
        let outcome = try Self.audit(input, ["--trust-verified", "--report", report.path])
        #expect(outcome.status == 1)
        #expect(outcome.output.split(separator: "\n").map { $0.split(separator: "\"")[3] } == ["alice", "bob", "carol"])
        #expect(Tool.summaryRow(outcome.errors, "signed data") == ["2 user(s), signatures NOT verified (trusted as verified at ingest)"])
        #expect(try String(contentsOf: report, encoding: .utf8).contains("signatures NOT verified (trusted as verified at ingest)"))
        // The shape is still checked.
        #expect(outcome.errors.contains("\(input):4: invalid value an object at $.receipt"))
        let withRoot = try Self.audit(input, ["--trust-verified"] + SignedData.trustTestChain)
        #expect(withRoot.status == 64)
        #expect(withRoot.errors == "masthead: audit: --trust-verified verifies no signature: give it or --root-certificate, not both\n")
    }

    @Test func wrongBundle_refusesTheLine() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try Self.input(in: folder)
        let outcome = try Self.audit(input, SignedData.trustTestChain + ["--bundle-id", "com.example.other"])
        #expect(outcome.output.split(separator: "\n").count == 1)
        #expect(outcome.errors.contains(#"\#(input):1: wrong app: $.signedTransactions[0].bundleId is "com.example.magazine", expected "com.example.other""#))
    }

    @Test func signedLine_withoutApp_isUsageError() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try Self.input(in: folder)
        let catalog = try SignedCheckTests.catalog(app: nil, in: folder)
        let output = folder.appendingPathComponent("out.jsonl")
        let outcome = try Self.audit(input, SignedData.trustTestChain + ["--output", output.path], catalog: catalog)
        #expect(outcome.status == 64)
        #expect(outcome.errors.hasSuffix("""
            masthead: audit: \(input):1 holds signed data, but no app is named to check it against: \
            give --bundle-id ID, or an "app" object in catalog.json ({"bundleId": "..."})

            """))
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }
}
