import Masthead
import MastheadFormats
import Testing

/// Each date and flag shape of R2.1/R2.2, the array/object forms, empty values (R2.5), statuses (R2.4).
struct ReceiptShapeTests {
    static func receipt(_ transaction: String, extra: String = "", status: String = "0") -> [UInt8] {
        Array(#"{"status": \#(status), "environment": "Production"\#(extra), "latest_receipt_info": [\#(transaction)]}"#.utf8)
    }

    static func transaction(_ fields: String) -> String {
        #"{"transaction_id": "t1", "product_id": "monthly", \#(fields)}"#
    }

    static let dateShapes: [(fields: String, milliseconds: Int64)] = [
        (#""purchase_date_ms": "1582200000000""#, 1_582_200_000_000),
        (#""purchase_date_ms": 1582200000000"#, 1_582_200_000_000),
        (#""purchase_date": "1582200000000""#, 1_582_200_000_000),
        (#""purchase_date": "2020-02-20 12:00:00 Etc/GMT""#, 1_582_200_000_000),
        (#""purchase_date": "2020-02-20T12:00:00Z""#, 1_582_200_000_000),
        (#""purchase_date": "2020-02-20T13:00:00+01:00""#, 1_582_200_000_000),
        (#""purchase_date": "2099-01-01 00:00:00 Etc/GMT", "purchase_date_ms": "1582200000000""#, 1_582_200_000_000),
        (#""purchase_date": "", "purchase_date_ms": "1582200000000", "purchase_date_pst": "garbage""#, 1_582_200_000_000),
        (#""purchase_date": "2020-02-20 12:00:00 Etc/GMT", "purchase_date_ms": """#, 1_582_200_000_000),
    ]

    @Test(arguments: dateShapes)
    func R2_1_dateShapes(shape: (fields: String, milliseconds: Int64)) throws {
        let receipt = try ReceiptDecoder().decode(Self.receipt(Self.transaction(shape.fields)))
        #expect(receipt.transactions.first?.purchase == Instant(milliseconds: shape.milliseconds))
    }

    static let badDates: [(fields: String, path: String)] = [
        (#""purchase_date": "2020-02-20 12:00:00 America/Los_Angeles""#, "$.latest_receipt_info[0].purchase_date"),
        (#""purchase_date": "yesterday""#, "$.latest_receipt_info[0].purchase_date"),
        (#""purchase_date": "2020-02-30T12:00:00Z""#, "$.latest_receipt_info[0].purchase_date"),
        (#""purchase_date_ms": "12a""#, "$.latest_receipt_info[0].purchase_date_ms"),
        // Bytes just past either end of the digits, within the first eight and after them.
        (#""purchase_date_ms": "158220:000000""#, "$.latest_receipt_info[0].purchase_date_ms"),
        (#""purchase_date_ms": "1582/00000000""#, "$.latest_receipt_info[0].purchase_date_ms"),
        (#""purchase_date_ms": "15822000000:0""#, "$.latest_receipt_info[0].purchase_date_ms"),
        (#""purchase_date_ms": 1.5e12"#, "$.latest_receipt_info[0].purchase_date_ms"),
        (#""purchase_date_ms": "1", "expires_date": "******""#, "$.latest_receipt_info[0].expires_date"),
    ]

    @Test(arguments: badDates)
    func R2_5_unreadableDate_namesFieldAndValue(bad: (fields: String, path: String)) {
        #expect {
            try ReceiptDecoder().decode(Self.receipt(Self.transaction(bad.fields)))
        } throws: { error in
            guard case FormatError.invalidValue(let path, let line, _, _) = error else { return false }
            return path == bad.path && line == 1
        }
    }

    @Test func R2_5_missingPurchaseDate_isError_emptyCountsAsMissing() {
        #expect(throws: FormatError.missingField(path: "$.latest_receipt_info[0].purchase_date", line: 1)) {
            try ReceiptDecoder().decode(Self.receipt(Self.transaction(#""purchase_date": """#)))
        }
        #expect(throws: FormatError.missingField(path: "$.latest_receipt_info[0].transaction_id", line: 1)) {
            try ReceiptDecoder().decode(Self.receipt(#"{"transaction_id": {}, "product_id": "x", "purchase_date_ms": "1"}"#))
        }
    }

    @Test func R2_5_autoRenewableWithoutExpiry_isError_whenCatalogKnowsProduct() {
        let catalog = Catalog(
            publications: [Publication(id: "p", issues: [])],
            products: [Product(productId: "monthly", type: .autoRenewable, publications: ["p"], access: .archive)])
        let bytes = Self.receipt(Self.transaction(#""purchase_date_ms": "1""#))
        #expect(throws: FormatError.missingField(path: "$.latest_receipt_info[0].expires_date", line: 1)) {
            try ReceiptDecoder(catalog: catalog).decode(bytes)
        }
        #expect(throws: Never.self) { try ReceiptDecoder().decode(bytes) }
    }

    /// Product ids the catalog knows are matched by their bytes; any other spelling is read as written.
    @Test func productIds_knownEscapedNumericAndUnknown_readAsWritten() throws {
        let ids = ["m", "monthly", "com.example.monthly", "com.example.monthly.premium", "com.example.monthly.premiun", "com.example.pass.1m"]
        let catalog = Catalog(
            publications: [Publication(id: "p", issues: [])],
            products: ids.map { Product(productId: $0, type: .nonRenewing, publications: ["p"], access: .archive) }
                + [Product(productId: "42", type: .nonRenewing, publications: ["p"], access: .archive)])
        let written = ids + [#"com.example\u002emonthly"#, "com.example.monthly.premiumX", "com.example.monthl", "42", "43"]
        let expected = ids + ["com.example.monthly", "com.example.monthly.premiumX", "com.example.monthl", "42", "43"]
        let transactions = written.enumerated().map { index, id in
            #"{"transaction_id": "t\#(index)", "product_id": "\#(id)", "purchase_date_ms": "\#(index + 1)"}"#
        }
        let receipt = try ReceiptDecoder(catalog: catalog).decode(
            Array(#"{"status": 0, "latest_receipt_info": [\#(transactions.joined(separator: ", ")), {"transaction_id": "n", "product_id": 43, "purchase_date_ms": "99"}]}"#.utf8))
        #expect(receipt.transactions.map(\.productId) == expected + ["43"])
    }

    static let flagShapes: [(text: String, value: Bool)] = [
        ("true", true), ("false", false), (#""true""#, true), (#""false""#, false), (#""1""#, true), (#""0""#, false), ("1", true), ("0", false),
        (#""f\u0061lse""#, false), (#""\u0031""#, true), (#""tru\u0065""#, true),
    ]

    @Test(arguments: flagShapes)
    func R2_2_flagShapes(shape: (text: String, value: Bool)) throws {
        let receipt = try ReceiptDecoder().decode(
            Self.receipt(Self.transaction(#""purchase_date_ms": "1", "is_upgraded": \#(shape.text)"#),
                         extra: #", "pending_renewal_info": [{"original_transaction_id": "t1", "is_in_billing_retry_period": \#(shape.text), "auto_renew_status": \#(shape.text)}]"#))
        #expect(receipt.transactions.first?.isUpgraded == shape.value)
        #expect(receipt.renewals.first?.isInBillingRetry == shape.value)
        #expect(receipt.renewals.first?.autoRenewOn == shape.value)
    }

    @Test func R2_2_unreadableFlag_isError() {
        #expect(throws: FormatError.invalidValue(path: "$.latest_receipt_info[0].is_upgraded", line: 1, value: "\"yes\"", expected: "a flag (true/false, \"1\"/\"0\")")) {
            try ReceiptDecoder().decode(Self.receipt(Self.transaction(#""purchase_date_ms": "1", "is_upgraded": "yes""#)))
        }
    }

    @Test(arguments: [#""falsE""#, #""fals""#, #""truE""#, #""2""#, #""True""#, #""00""#, #""f\u0061ls""#])
    func R2_2_nearlyAFlag_isError(text: String) {
        #expect(throws: FormatError.self) {
            try ReceiptDecoder().decode(Self.receipt(Self.transaction(#""purchase_date_ms": "1", "is_upgraded": \#(text)"#)))
        }
    }

    @Test func R2_idsRepeatedAcrossTransactions_readByTheirOwnBytes() throws {
        // Renewals repeat the original id and the product; ids of equal length, ids written with
        // an escape, and an original id equal to the transaction's own each read as written.
        let text = #"""
            {"status": 0, "latest_receipt_info": [
              {"transaction_id": "a1", "original_transaction_id": "a1", "product_id": "monthly", "purchase_date_ms": "1"},
              {"transaction_id": "a2", "original_transaction_id": "a1", "product_id": "monthly", "purchase_date_ms": "2"},
              {"transaction_id": "b1", "original_transaction_id": "b1", "product_id": "monthlx", "purchase_date_ms": "3"},
              {"transaction_id": "a3", "original_transaction_id": "a1", "product_id": "monthly", "purchase_date_ms": "4"},
              {"transaction_id": "b2", "original_transaction_id": "b\u0031", "product_id": "month\u006cx", "purchase_date_ms": "5"},
              {"transaction_id": "b3", "original_transaction_id": "b1", "product_id": "monthlx", "purchase_date_ms": "6"},
              {"transaction_id": "c1", "product_id": "monthlz", "purchase_date_ms": "7"}]}
            """#
        let receipt = try ReceiptDecoder().decode(Array(text.utf8))
        #expect(receipt.transactions.map(\.transactionId) == ["a1", "a2", "b1", "a3", "b2", "b3", "c1"])
        #expect(receipt.transactions.map(\.originalTransactionId) == ["a1", "a1", "b1", "a1", "b1", "b1", "c1"])
        #expect(receipt.transactions.map(\.productId) == ["monthly", "monthly", "monthlx", "monthly", "monthlx", "monthlx", "monthlz"])
    }

    @Test func R2_latestReceiptInfo_asSingleObject_andInAppUnion_deduplicated() throws {
        let text = #"""
            {"status": 0, "receipt": {"in_app": [{"transaction_id": "a", "product_id": "m", "purchase_date_ms": "1"},
                                                 {"transaction_id": "b", "product_id": "m", "purchase_date_ms": "2"}]},
             "latest_receipt_info": {"transaction_id": "b", "product_id": "m", "purchase_date_ms": "2", "cancellation_date_ms": "5"}}
            """#
        let receipt = try ReceiptDecoder().decode(Array(text.utf8))
        #expect(receipt.transactions.map(\.transactionId) == ["a", "b"])
        #expect(receipt.transactions[1].cancellation == Instant(milliseconds: 5))
        #expect(receipt.environment == .production)
    }

    @Test func R2_4_statusCodes_rejectedWithMeaning_evenWithBody() {
        for status in [21000, 21002, 21003, 21004, 21005, 21007, 21008, 21009, 21010, 21100, 21199, 12345] {
            #expect(throws: FormatError.receiptRejected(status: status, meaning: ReceiptStatus.meaning(status))) {
                try ReceiptDecoder().decode(Self.receipt(Self.transaction(#""purchase_date_ms": "1""#), status: String(status)))
            }
        }
        #expect(ReceiptStatus.meaning(21007).contains("sandbox (test) receipt was sent to the production"))
        #expect(ReceiptStatus.meaning(21008).contains("production receipt was sent to the sandbox"))
        #expect(throws: Never.self) { try ReceiptDecoder().decode(Self.receipt(Self.transaction(#""purchase_date_ms": "1""#), status: "21006")) }
        #expect(throws: Never.self) { try ReceiptDecoder().decode(Self.receipt(Self.transaction(#""purchase_date_ms": "1""#), status: #""0""#)) }
    }

    @Test func R14_environmentField_shapes() throws {
        for (text, environment) in [("\"Sandbox\"", Environment.sandbox), ("\"SANDBOX\"", .sandbox), ("\"PROD\"", .production), ("\"\"", .production)] {
            let bytes = Array(#"{"status": 0, "environment": \#(text), "latest_receipt_info": [\#(Self.transaction(#""purchase_date_ms": "1""#))]}"#.utf8)
            let receipt = try ReceiptDecoder().decode(bytes)
            #expect(receipt.environment == environment)
            #expect(receipt.transactions.first?.environment == environment)
        }
        #expect(throws: FormatError.self) {
            try ReceiptDecoder().decode(Array(#"{"status": 0, "environment": "Staging"}"#.utf8))
        }
    }

    @Test func R2_6_topLevelRenewalFields_applyToTheReceiptsSubscription() throws {
        let receipt = try ReceiptDecoder().decode(Fixtures.appStoreBytes("verify-receipt", "nomad-venice--status-21006-ios6-trial.json"))
        let latest = try #require(receipt.transactions.last)
        #expect(receipt.renewals.contains { $0.originalTransactionId == latest.originalTransactionId })
    }
}
