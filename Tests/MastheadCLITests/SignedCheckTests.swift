import Foundation
import MastheadJSON
import MastheadTestSupport
import Testing

/// `masthead check` and `timeline` on signed data: shapes, trust options, refusals, and the
/// signed Table 6-1 reader row by row.
struct SignedCheckTests {
    static let at = ["--at", "2020-07-02T00:00:00Z"]

    static func check(_ receipts: [String], _ options: [String] = SignedData.trustTestChain, catalog: String = "Catalog/the-monthly") throws -> Tool.Outcome {
        try Tool.run(["check", "--catalog", catalog] + receipts.flatMap { ["--receipt", $0] } + at + options)
    }

    /// The shipped catalog with its `"app"` object replaced (nil: removed), written in `folder`.
    static func catalog(app: [String: Any]?, in folder: URL) throws -> String {
        var catalog = try JSONSerialization.jsonObject(with: Data(contentsOf: Tool.root.appendingPathComponent("Catalog/the-monthly/catalog.json"))) as! [String: Any]
        catalog["app"] = app
        let url = folder.appendingPathComponent("catalog.json")
        try JSONSerialization.data(withJSONObject: catalog).write(to: url)
        return url.path
    }

    @Test(arguments: Table61.rows)
    func signedTable61_answersEveryRowLikeTheReceipt(row: (at: String, state: String, readable: [String])) throws {
        func check(_ receipt: String, _ options: [String]) throws -> Tool.Outcome {
            try Tool.run(["check", "--catalog", "Catalog/the-monthly", "--receipt", receipt, "--at", row.at, "--format", "json"] + options)
        }
        let signed = try check(SignedData.table61Path, SignedData.trustTestChain)
        let receipt = try check("Catalog/the-monthly/receipts/table-6-1.json", [])
        #expect(signed.status == 0)
        #expect(signed.errors == "")
        #expect(signed.output == receipt.output)
        let publication = try #require(try JSONDocument(parsing: signed.output).root["publications"]?.elements.first { _ in true })
        #expect(publication["status"]?["state"]?.string == row.state)
        #expect(publication["readable"]?.elements.compactMap(\.string) == row.readable)
    }

    /// A V2 notification, signed transactions, an audit line of signed data and a V1 notification
    /// body are each read by their shape; several files merge.
    @Test func shapes_areToldApart_andSeveralFilesMerge() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let expected = try Self.check(["Catalog/the-monthly/receipts/table-6-1.json"], [])
        #expect(expected.status == 0)
        let (transactions, renewals) = try SignedData.table61()
        let notification = try SignedData.write(try SignedData.notification(transaction: transactions[2], renewal: renewals[0]), "v2.json", in: folder)
        let firstTwo = try SignedData.write(SignedData.document(transactions: Array(transactions.prefix(2))), "first-two.json", in: folder)
        let merged = try Self.check([firstTwo, notification])
        #expect(merged.status == 0)
        #expect(merged.errors == "")
        #expect(merged.output == expected.output)

        let line = try SignedData.write(SignedData.line("alice", transactions: transactions, renewals: renewals), "line.json", in: folder)
        #expect(try Self.check([line]).output == expected.output)

        let receipt = try String(contentsOf: Tool.root.appendingPathComponent("Catalog/the-monthly/receipts/table-6-1.json"), encoding: .utf8)
        let v1 = try SignedData.write(#"{"notification_type": "DID_RENEW", "password": "secret", "environment": "PROD", "unified_receipt": \#(receipt)}"#, "v1.json", in: folder)
        let fromV1 = try Self.check([v1], [])
        #expect(fromV1.errors == "")
        #expect(fromV1.output == expected.output)
    }

    @Test func rootCertificate_derOrPem_repeatable_defaultIsAppleRootCA() throws {
        let byApple = try Self.check([SignedData.table61Path], [])
        #expect(byApple.status == 1)
        #expect(byApple.errors.contains("$.signedTransactions[0]: signature refused: the certificate chain does not lead to a configured root certificate"))
        #expect(byApple.output == "")
        #expect(try Self.check([SignedData.table61Path], ["--root-certificate", "Tests/Fixtures/test-chain/root.pem"]).status == 0)
        let other = ["--root-certificate", "Tests/Fixtures/test-chain/other-root.der"]
        #expect(try Self.check([SignedData.table61Path], other).status == 1)
        #expect(try Self.check([SignedData.table61Path], other + SignedData.trustTestChain).status == 0)
        let notACertificate = try Self.check([SignedData.table61Path], ["--root-certificate", "Catalog/the-monthly/catalog.json"])
        #expect(notACertificate.status == 1)
        #expect(notACertificate.errors.hasPrefix("masthead: Catalog/the-monthly/catalog.json: "))
    }

    @Test func bundleId_fromCatalogOrFlag_flagWins_wrongBundleRefused() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let otherApp = try Self.catalog(app: ["bundleId": "com.example.other"], in: folder)
        let refused = try Self.check([SignedData.table61Path], catalog: otherApp)
        #expect(refused.status == 1)
        #expect(refused.errors.contains(#"wrong app: $.signedTransactions[0].bundleId is "com.example.magazine", expected "com.example.other""#))
        #expect(refused.output == "")
        #expect(try Self.check([SignedData.table61Path], SignedData.trustTestChain + ["--bundle-id", "com.example.magazine"], catalog: otherApp).status == 0)
        let wrongFlag = try Self.check([SignedData.table61Path], SignedData.trustTestChain + ["--bundle-id", "com.example.other"])
        #expect(wrongFlag.status == 1)
        #expect(wrongFlag.errors.contains(#"expected "com.example.other""#))
    }

    @Test func appAppleId_fromCatalogOrFlag_checkedOnProductionNotifications() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (transactions, renewals) = try SignedData.table61()
        let notification = try SignedData.write(try SignedData.notification(transaction: transactions[2], renewal: renewals[0]), "v2.json", in: folder)
        let withId = try Self.catalog(app: ["bundleId": "com.example.magazine", "appAppleId": 1_234_567_890], in: folder)
        #expect(try Self.check([notification], catalog: withId).status == 0)
        let wrongFlag = try Self.check([notification], SignedData.trustTestChain + ["--app-apple-id", "42"], catalog: withId)
        #expect(wrongFlag.status == 1)
        #expect(wrongFlag.errors.contains("wrong app: $.signedPayload.data.appAppleId is 1234567890, expected 42"))
        let otherInCatalog = try Self.catalog(app: ["bundleId": "com.example.magazine", "appAppleId": 42], in: folder)
        #expect(try Self.check([notification], catalog: otherInCatalog).status == 1)
        #expect(try Self.check([notification], SignedData.trustTestChain + ["--app-apple-id", "1234567890"], catalog: otherInCatalog).status == 0)
        let notANumber = try Self.check([notification], SignedData.trustTestChain + ["--app-apple-id", "x"])
        #expect(notANumber.status == 64)
        #expect(notANumber.errors.contains("--app-apple-id must be the app's App Apple ID, a positive whole number, not 'x'"))
    }

    @Test func catalogApp_ofTheWrongShape_isNamedByPath() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let bad = try Self.catalog(app: ["bundleId": "", "appAppleId": "12"], in: folder)
        let outcome = try Self.check(["Catalog/the-monthly/receipts/table-6-1.json"], [], catalog: bad)
        #expect(outcome.status == 1)
        #expect(outcome.errors.contains("$.app.bundleId: expected a non-empty string"))
        #expect(outcome.errors.contains(#"$.app.appAppleId: expected the app's positive whole-number App Apple ID, found "12""#))
    }

    @Test func missingBundleId_isUsageError_namingBothWays_onlyForSignedData() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let noApp = try Self.catalog(app: nil, in: folder)
        let outcome = try Self.check([SignedData.table61Path], catalog: noApp)
        #expect(outcome.status == 64)
        #expect(outcome.errors == """
            masthead: check: \(SignedData.table61Path) holds signed data, but no app is named to check it against: \
            give --bundle-id ID, or an "app" object in catalog.json ({"bundleId": "..."})

            """)
        #expect(outcome.output == "")
        #expect(try Self.check(["Catalog/the-monthly/receipts/table-6-1.json"], [], catalog: noApp).status == 0)
    }

    @Test func tamperedToken_exitsOne_withReasonAndPath_printingNothing() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var (transactions, renewals) = try SignedData.table61()
        transactions[1] = SignedData.tampered(transactions[1])
        let tampered = try SignedData.write(SignedData.document(transactions: transactions, renewals: renewals), "tampered.json", in: folder)
        let outcome = try Self.check(["Catalog/the-monthly/receipts/table-6-1.json", tampered])
        #expect(outcome.status == 1)
        #expect(outcome.errors == "masthead: \(tampered): $.signedTransactions[1]: signature refused: invalid ES256 signature: "
            + "it does not verify with the leaf certificate's key over the token's header and payload\n")
        #expect(outcome.output == "")
        let picture = folder.appendingPathComponent("reader.svg")
        let timeline = try Tool.run(["timeline", "--catalog", "Catalog/the-monthly", "--receipt", tampered, "--output", picture.path] + SignedData.trustTestChain)
        #expect(timeline.status == 1)
        #expect(timeline.errors.contains("$.signedTransactions[1]: signature refused"))
        #expect(!FileManager.default.fileExists(atPath: picture.path))
    }

    @Test func timeline_drawsSignedData_likeTheReceipt() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        func draw(_ receipt: String, _ options: [String]) throws -> String {
            let picture = folder.appendingPathComponent("reader.svg")
            let outcome = try Tool.run(["timeline", "--catalog", "Catalog/the-monthly", "--receipt", receipt, "--output", picture.path] + Self.at + options)
            #expect(outcome.status == 0)
            return try String(contentsOf: picture, encoding: .utf8)
        }
        #expect(try draw(SignedData.table61Path, SignedData.trustTestChain) == (try draw("Catalog/the-monthly/receipts/table-6-1.json", [])))
    }

    /// Sandbox signed data is read, and grants only when sandbox answers are asked for (R14).
    @Test func sandboxSignedData_isKept_butGrantsOnlyInSandbox() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let sandbox = try SignedData.write(SignedData.document(transactions: [try SignedData.transaction(["environment": "Sandbox"])]), "sandbox.json", in: folder)
        let production = try Self.check([sandbox])
        #expect(production.status == 0)
        #expect(production.output.contains("No transaction of this environment grants a publication of the catalog."))
        let inSandbox = try Self.check([sandbox], SignedData.trustTestChain + ["--environment", "sandbox"])
        #expect(inSandbox.status == 0)
        #expect(inSandbox.output.contains("  Status   active"))
    }

    /// An Advanced Commerce one-time charge whose item names the shipped catalog's SKU
    /// (`back-issue.2020-05`) is a purchase of that single issue; an item whose SKU the catalog
    /// does not know grants nothing and is listed among the unknown products (R3).
    @Test func advancedCommerceItem_namingACatalogSKU_unlocksItsIssue() throws {
        let folder = try Tool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let charge = try SignedData.transaction([
            "transactionId": "7000001", "originalTransactionId": "7000001", "productId": "com.example.advanced", "type": "Non-Consumable",
            "purchaseDate": 1_591_747_200_000, "signedDate": 1_591_747_200_000, "expiresDate": NSNull(),
            "advancedCommerceInfo": [
                "items": [["SKU": "back-issue.2020-05", "price": 2990, "displayName": "May 2020"], ["SKU": "poster.2020", "price": 990]],
                "requestReferenceId": "c0ffee00-0000-4000-8000-000000000001", "taxCode": "C003-00-2",
            ] as [String: Any],
        ])
        let document = try SignedData.write(SignedData.document(transactions: [charge]), "charge.json", in: folder)
        let outcome = try Self.check([document], SignedData.trustTestChain + ["--format", "json"])
        #expect(outcome.status == 0, "\(outcome.errors)")
        let root = try JSONDocument(parsing: outcome.output).root
        let publication = try #require(root["publications"]?.elements.first { _ in true })
        #expect(publication["readable"]?.elements.compactMap(\.string) == ["2020-05"])
        #expect(root["unknownProducts"]?.elements.compactMap(\.string) == ["sku:poster.2020"])
    }
}
