import Foundation
import Testing

/// `masthead import` of signed lines: verified as the audit verifies them, stored as
/// `POST /v1/users/{userId}/transactions` stores them, so that `audit --database` reads what
/// `audit --receipts` reads.
struct SignedImportCommandTests {
    static func importing(_ receipts: String, into database: String, _ extra: [String] = [], catalog: String = "Catalog/the-monthly") throws -> Tool.Outcome {
        try Tool.run(["import", "--catalog", catalog, "--receipts", receipts, "--database", database] + extra)
    }

    static func audit(_ source: [String], at: String = "2020-07-02T00:00:00Z") throws -> Tool.Outcome {
        try Tool.run(["audit", "--catalog", "Catalog/the-monthly", "--at", at] + source)
    }

    /// Lines: alice signed, bob signed with a tampered token (alice's subscription), carol a
    /// receipt of another subscription, dave both a receipt and signed data.
    static func input(in folder: URL) throws -> String {
        let (transactions, renewals) = try SignedData.table61()
        var tampered = transactions
        tampered[1] = SignedData.tampered(tampered[1])
        let both = #"{"user_id":"dave","receipt":{"status":0},"# + SignedData.document(transactions: transactions).dropFirst()
        return try SignedData.write(
            [
                SignedData.line("alice", transactions: transactions, renewals: renewals), SignedData.line("bob", transactions: tampered, renewals: renewals),
                try AuditCommandTests.receiptLine("carol", "table-6-2"), both,
            ].joined(separator: "\n"), "in.jsonl", in: folder)
    }

    /// The users of a database's audit, in order.
    static func users(_ database: String) throws -> [Substring] {
        try Self.audit(["--database", database]).output.split(separator: "\n").map { $0.split(separator: "\"")[3] }
    }

    /// A generated population signed, imported, then audited from the database: the same lines as
    /// audited from the signed file, at several instants.
    @Test func importedSignedPopulation_auditsAsTheSignedFileDoes() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let receipts = folder.appendingPathComponent("users.jsonl").path
        let signed = folder.appendingPathComponent("signed.jsonl").path
        let database = folder.appendingPathComponent("masthead.sqlite").path
        let generate = try Tool.run(["generate", "--catalog", "Catalog/the-monthly", "--users", "200", "--seed", "11", "--output", receipts])
        #expect(generate.status == 0, "\(generate.errors)")
        try SignedPopulation.write(receipts: receipts, to: signed)
        let imported = try Self.importing(signed, into: database, SignedData.trustTestChain + ["--maxCommitBatch", "32"])
        #expect(imported.status == 0, "\(imported.errors)")
        #expect(imported.output == "import: 200 line(s) stored in \(database), 0 rejected\n")
        #expect(imported.errors.isEmpty)
        for at in ["2020-06-30T23:59:59Z", "2021-06-30T00:00:00Z"] {
            let fromDatabase = try Self.audit(["--database", database], at: at)
            let fromSigned = try Self.audit(["--receipts", signed] + SignedData.trustTestChain, at: at)
            #expect(fromDatabase.status == 0, "\(fromDatabase.errors)")
            #expect(fromSigned.status == 0, "\(fromSigned.errors)")
            #expect(Tool.summaryRow(fromSigned.errors, "signed data") == ["200 user(s), every signature verified"])
            #expect(fromDatabase.output.split(separator: "\n").count > 150)
            #expect(fromDatabase.output.split(separator: "\n").sorted() == fromSigned.output.split(separator: "\n").sorted())
            // The signed population decides as the receipts it was made from.
            let fromReceipts = try Self.audit(["--receipts", receipts], at: at)
            #expect(fromDatabase.output.split(separator: "\n").sorted() == fromReceipts.output.split(separator: "\n").sorted())
        }
        // Importing again gives the same histories.
        let before = try Self.audit(["--database", database], at: "2021-06-30T00:00:00Z").output
        #expect(try Self.importing(signed, into: database, SignedData.trustTestChain).status == 0)
        #expect(try Self.audit(["--database", database], at: "2021-06-30T00:00:00Z").output == before)
    }

    /// A line with a tampered token, or with both a receipt and signed data, is reported as
    /// FILE:LINE with the token's JSON path and stores nothing; the import goes on and exits 1.
    @Test func tamperedLine_reportedWithLineAndPath_othersStored() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // alice signed, bob signed with a tampered token, carol a receipt, dave both.
        let input = try Self.input(in: folder)
        let database = folder.appendingPathComponent("masthead.sqlite").path
        let run = try Self.importing(input, into: database, SignedData.trustTestChain)
        #expect(run.status == 1)
        #expect(run.output == "import: 2 line(s) stored in \(database), 2 rejected\n")
        #expect(run.errors.split(separator: "\n").map(String.init) == [
            "\(input):2: $.signedTransactions[1]: signature refused: invalid ES256 signature: "
                + "it does not verify with the leaf certificate's key over the token's header and payload",
            "\(input):4: invalid value an object at $.receipt (line 1): "
                + "expected no receipt beside signedTransactions or signedRenewalInfos (a line carries one or the other)",
        ])
        let fromDatabase = try Self.audit(["--database", database])
        #expect(fromDatabase.output.hasPrefix(#"{"user_id":"alice","publication":"the-monthly",\#(SignedAuditCommandTests.readable)"#))
        #expect(try Self.users(database) == ["alice", "carol"])
        #expect(fromDatabase.output == (try Self.audit(["--receipts", input] + SignedData.trustTestChain)).output)
    }

    /// A token for another app is refused like a tampered one, naming the field.
    @Test func wrongBundle_refusesTheLine() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try Self.input(in: folder)
        let database = folder.appendingPathComponent("masthead.sqlite").path
        let run = try Self.importing(input, into: database, SignedData.trustTestChain + ["--bundle-id", "com.example.other"])
        #expect(run.status == 1)
        #expect(run.errors.contains(#"\#(input):1: wrong app: $.signedTransactions[0].bundleId is "com.example.magazine", expected "com.example.other""#))
        #expect(try Self.users(database) == ["carol"])
    }

    /// Without the test chain's root, Apple Root CA - G3 is the trust anchor: every signed line is refused.
    @Test func defaultRoot_refusesTheTestChain() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try Self.input(in: folder)
        let database = folder.appendingPathComponent("masthead.sqlite").path
        let run = try Self.importing(input, into: database)
        #expect(run.status == 1)
        #expect(run.errors.hasPrefix("\(input):1: $.signedTransactions[0]: signature refused: "))
        #expect(try Self.users(database) == ["carol"])
    }

    /// --trust-verified stores the tampered token's line too (its shape is still checked; bob's
    /// line, later, takes alice's subscription) and says so; it cannot be combined with
    /// --root-certificate.
    @Test func trustVerified_skipsSignatures_andSaysSo() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try Self.input(in: folder)
        let database = folder.appendingPathComponent("masthead.sqlite").path
        let run = try Self.importing(input, into: database, ["--trust-verified"])
        #expect(run.status == 1)
        #expect(run.output == "import: 3 line(s) stored in \(database), 1 rejected (signatures not verified: --trust-verified)\n")
        #expect(run.errors.hasPrefix("\(input):4: invalid value an object at $.receipt"))
        #expect(try Self.users(database) == ["bob", "carol"])
        let other = folder.appendingPathComponent("other.sqlite").path
        let withRoot = try Self.importing(input, into: other, ["--trust-verified"] + SignedData.trustTestChain)
        #expect(withRoot.status == 64)
        #expect(withRoot.errors == "masthead: import: --trust-verified verifies no signature: give it or --root-certificate, not both\n")
    }

    /// A signed line while no app is named stops the import there with a usage error naming both
    /// ways to give one.
    @Test func signedLine_withoutApp_isUsageError() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let receipts = try SignedData.write(
            [try AuditCommandTests.receiptLine("carol", "table-6-2"), SignedData.line("alice", transactions: try SignedData.table61().transactions)]
                .joined(separator: "\n"), "in.jsonl", in: folder)
        let catalog = try SignedCheckTests.catalog(app: nil, in: folder)
        let database = folder.appendingPathComponent("masthead.sqlite").path
        let run = try Self.importing(receipts, into: database, SignedData.trustTestChain, catalog: catalog)
        #expect(run.status == 64)
        #expect(run.output.isEmpty)
        #expect(run.errors == """
            masthead: import: \(receipts):2 holds signed data, but no app is named to check it against: \
            give --bundle-id ID, or an "app" object in catalog.json ({"bundleId": "..."})

            """)
        #expect(try !Self.users(database).contains("alice"))
        // Named by the flag, the same file imports.
        let named = try Self.importing(receipts, into: database, SignedData.trustTestChain + ["--bundle-id", "com.example.magazine"], catalog: catalog)
        #expect(named.status == 0, "\(named.errors)")
        #expect(try Self.users(database) == ["alice", "carol"])
    }

    /// The restore behaviour is the transactions route's: by default the subscription moves to the
    /// later line's user; with restore keep that line is refused, naming the subscription.
    @Test func sameSignedSubscriptionForTwoUsers_followsTheRestoreBehaviour() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (transactions, renewals) = try SignedData.table61()
        let receipts = try SignedData.write(
            [SignedData.line("alice", transactions: transactions, renewals: renewals), SignedData.line("bob", transactions: transactions)]
                .joined(separator: "\n"), "in.jsonl", in: folder)
        let transferred = folder.appendingPathComponent("transfer.sqlite").path
        #expect(try Self.importing(receipts, into: transferred, SignedData.trustTestChain).status == 0)
        #expect(try Self.users(transferred) == ["bob"])
        let kept = folder.appendingPathComponent("keep.sqlite").path
        let run = try Self.importing(receipts, into: kept, SignedData.trustTestChain + ["--restore", "keep"])
        #expect(run.status == 1)
        #expect(run.errors == "\(receipts):2: subscription 1000001 (production) is already linked to another user\n")
        #expect(try Self.users(kept) == ["alice"])
    }
}
