import Foundation
import Masthead
import MastheadFormats
import Testing

/// Catalog products named by Advanced Commerce SKUs (`"sku"`), and signed transactions whose
/// `advancedCommerceInfo` items name them read as purchases of those products (R3).
struct AdvancedCommerceSKUTests {
    static let catalogText = #"""
        {"publications": [{"id": "p", "issues": [{"id": "a", "published": "2020-02-01T00:00:00Z"}, {"id": "b", "published": "2020-03-01T00:00:00Z"}]}],
         "products": [
           {"productId": "com.example.issue.a", "type": "issue", "publication": "p", "issue": "a", "sku": "back-issue.a"},
           {"productId": "com.example.issue.b", "type": "issue", "publication": "p", "issue": "b", "sku": "back-issue.b"},
           {"productId": "com.example.monthly", "type": "autoRenewable", "publications": ["p"], "access": "archive", "sku": "digital.monthly"},
           {"productId": "com.example.pass", "type": "nonRenewing", "duration": "P1M", "publications": ["p"], "access": "archive"}]}
        """#

    static func catalog() throws -> Catalog { try CatalogDecoder().decode(Array(catalogText.utf8)) }

    /// The problems a catalog text is refused with, as `path: message`.
    static func problems(_ text: String) -> [String] {
        do {
            _ = try CatalogDecoder().decode(Array(text.utf8))
            return []
        } catch {
            guard case .invalidCatalog(_, let problems) = error else { return ["\(error)"] }
            return problems.map { "\($0.path): \($0.message)" }
        }
    }

    /// A signed one-time charge of the Advanced Commerce product `com.example.advanced` whose
    /// `advancedCommerceInfo` holds `items` (JSON objects), with `extra` members.
    static func payload(items: [String], type: String = "Non-Consumable", extra: String = "") -> [UInt8] {
        Array(
            (#"{"transactionId": "t1", "originalTransactionId": "t1", "productId": "com.example.advanced", "purchaseDate": 1583020800000, "#
                + #""signedDate": 1583020800000, "environment": "Production", "type": "\#(type)", "appAccountToken": "3f2504e0-4f89-41d3-9a0c-0305e82c3301", "#
                + #""advancedCommerceInfo": {"items": [\#(items.joined(separator: ", "))], "requestReferenceId": "r1", "taxCode": "C003-00-2"}\#(extra)}"#).utf8)
    }

    static func item(_ sku: String, revoked: Int64? = nil) -> String {
        #"{"SKU": "\#(sku)", "displayName": "\#(sku)", "description": "a back issue", "price": 2990"#
            + (revoked.map { #", "revocationDate": \#($0), "refunds": [{"refundAmount": 2990, "refundDate": \#($0), "refundReason": "OTHER", "refundType": "FULL"}]"# } ?? "") + "}"
    }

    @Test func catalogSKU_isReadAndFound_byItsExactBytes() throws {
        let catalog = try Self.catalog()
        #expect(catalog.product("com.example.issue.a")?.sku == "back-issue.a")
        #expect(catalog.product(sku: "back-issue.b")?.productId == "com.example.issue.b")
        #expect(catalog.product(sku: "digital.monthly")?.productId == "com.example.monthly")
        #expect(catalog.product("com.example.pass")?.sku == nil)
        #expect(catalog.product(sku: "com.example.pass") == nil)
        // Another Unicode spelling of a SKU is another SKU ("é" precomposed, then decomposed).
        let composed = Self.catalogText.replacingOccurrences(of: "back-issue.a", with: "caf\u{E9}")
        #expect(try CatalogDecoder().decode(Array(composed.utf8)).product(sku: "cafe\u{301}") == nil)
    }

    @Test func catalogSKU_duplicateEmptyOrReservedPrefix_areProblemsWithTheirPath() {
        let duplicate = Self.catalogText.replacingOccurrences(of: #""sku": "back-issue.b""#, with: #""sku": "back-issue.a""#)
        #expect(Self.problems(duplicate) == [#"$.products[1].sku: duplicate SKU "back-issue.a", named first at $.products[0].sku"#])
        let empty = Self.catalogText.replacingOccurrences(of: #""sku": "back-issue.b""#, with: #""sku": """#)
        #expect(Self.problems(empty) == [#"$.products[1].sku: expected a non-empty SKU without control characters, found """#])
        let control = Self.catalogText.replacingOccurrences(of: #""sku": "back-issue.b""#, with: #""sku": "back\u0007""#)
        #expect(Self.problems(control) == [#"$.products[1].sku: expected a non-empty SKU without control characters, found "back\u0007""#])
        let notString = Self.catalogText.replacingOccurrences(of: #""sku": "back-issue.b""#, with: #""sku": 5"#)
        #expect(Self.problems(notString) == [#"$.products[1].sku: expected a string, found 5"#])
        let reserved = Self.catalogText.replacingOccurrences(of: #""productId": "com.example.pass""#, with: #""productId": "sku:back-issue.z""#)
        #expect(Self.problems(reserved) == [
            #"$.products[3].productId: product id "sku:back-issue.z" begins with "sku:", which names Advanced Commerce SKUs the catalog does not know; name the SKU with "sku""#
        ])
        let misspelt = Self.catalogText.replacingOccurrences(of: #""sku": "back-issue.b""#, with: #""SKU": "back-issue.b""#)
        #expect(Self.problems(misspelt) == [#"$.products[1].SKU: unknown key "SKU"; did you mean "sku"?"#])
    }

    /// One item naming a catalog SKU: a purchase of that product under the transaction's own id.
    @Test func oneItem_isAPurchaseOfTheProductItsSKUNames() throws {
        let signed = try SignedDataDecoder(catalog: Self.catalog()).transaction(Self.payload(items: [Self.item("back-issue.a")]))
        #expect(signed.transactions.count == 1)
        #expect(
            signed.transaction
                == Transaction(
                    transactionId: "t1", originalTransactionId: "t1", productId: "com.example.issue.a", purchase: Instant(milliseconds: 1_583_020_800_000),
                    signedDate: Instant(milliseconds: 1_583_020_800_000)))
        #expect(signed.payload.productId == "com.example.advanced")
    }

    /// Several items: each its own purchase (`transactionId:SKU`), sharing the transaction's dates;
    /// an item's own revocation (Apple's refund of that item) cancels it alone, as a refund (R5.1);
    /// a SKU the catalog does not know is the unknown product `sku:SKU`; a repeated SKU is one purchase.
    @Test func severalItems_areEachAPurchase_anItemsRevocationCancelsItAlone() throws {
        let revoked: Int64 = 1_583_107_200_000
        let payload = Self.payload(items: [Self.item("back-issue.a"), Self.item("back-issue.b", revoked: revoked), Self.item("poster"), Self.item("back-issue.a")])
        let signed = try SignedDataDecoder(catalog: Self.catalog()).transaction(payload)
        #expect(signed.transactions.map(\.transactionId) == ["t1:back-issue.a", "t1:back-issue.b", "t1:poster"])
        #expect(signed.transactions.map(\.productId) == ["com.example.issue.a", "com.example.issue.b", "sku:poster"])
        #expect(signed.transactions.map(\.originalTransactionId) == ["t1", "t1", "t1"])
        #expect(signed.transactions.map(\.purchase) == Array(repeating: Instant(milliseconds: 1_583_020_800_000), count: 3))
        #expect(signed.transactions.map(\.cancellation) == [nil, Instant(milliseconds: revoked), nil])
        #expect(signed.transaction == signed.transactions[0])

        // The engine: issue a stays readable, b is refunded, the poster is reported as an unknown product.
        let catalog = try Self.catalog()
        let at = Instant(milliseconds: 1_590_000_000_000)
        let entitlements = EntitlementEngine(catalog: catalog).evaluate(PurchaseHistory(transactions: signed.transactions), at: at)
        #expect(entitlements.unknownProductIds == ["sku:poster"])
        let readable = try #require(entitlements.publications.first).readableIssueIds
        #expect(readable == ["a"])
    }

    /// A revocation of the whole transaction cancels every item; an item revoked earlier keeps its own date.
    @Test func transactionRevocation_cancelsEveryItem() throws {
        let (whole, early): (Int64, Int64) = (1_583_280_000_000, 1_583_107_200_000)
        let payload = Self.payload(
            items: [Self.item("back-issue.a"), Self.item("back-issue.b", revoked: early)], extra: #", "revocationDate": \#(whole), "revocationReason": 0"#)
        let signed = try SignedDataDecoder(catalog: Self.catalog()).transaction(payload)
        #expect(signed.transactions.map(\.cancellation) == [Instant(milliseconds: whole), Instant(milliseconds: early)])
    }

    /// A product named by SKU must be sold as its catalog type says; without items naming a SKU
    /// the transaction is read as before, by its `productId`.
    @Test func skuProduct_typeChecked_andItemsWithoutSKU_leaveTheTransactionAsItIs() throws {
        let decoder = SignedDataDecoder(catalog: try Self.catalog())
        #expect(
            throws: FormatError.productTypeMismatch(path: "$.type", line: 1, value: "\"Consumable\"", productId: "com.example.issue.a", catalogType: .issue)
        ) { try decoder.transaction(Self.payload(items: [Self.item("back-issue.a")], type: "Consumable")) }
        #expect(throws: FormatError.missingField(path: "$.expiresDate", line: 1)) {
            try decoder.transaction(Self.payload(items: [Self.item("digital.monthly")], type: "Auto-Renewable Subscription"))
        }
        let plain = try decoder.transaction(Self.payload(items: [#"{"displayName": "no SKU", "price": 100}"#]))
        #expect(plain.transactions.map(\.productId) == ["com.example.advanced"])
        #expect(plain.transaction.transactionId == "t1")
        // Without a catalog no SKU can be matched: the transaction is read by its productId.
        let uncatalogued = try SignedDataDecoder().transaction(Self.payload(items: [Self.item("back-issue.a"), Self.item("poster")]))
        #expect(uncatalogued.transactions.map(\.transactionId) == ["t1"])
        #expect(uncatalogued.transactions.map(\.productId) == ["com.example.advanced"])
    }

    /// A catalog that lists the Advanced Commerce product itself keeps granting it for items whose
    /// SKU it does not name; an item naming a SKU still buys that SKU's product.
    @Test func unknownSKU_isThePurchaseOfTheTransactionsProduct_whenTheCatalogListsIt() throws {
        let text = Self.catalogText.replacingOccurrences(
            of: #"{"productId": "com.example.pass", "type": "nonRenewing", "duration": "P1M", "publications": ["p"], "access": "archive"}"#,
            with: #"{"productId": "com.example.advanced", "type": "issue", "publication": "p", "issue": "b"}"#)
        let decoder = SignedDataDecoder(catalog: try CatalogDecoder().decode(Array(text.utf8)))
        let signed = try decoder.transaction(Self.payload(items: [Self.item("poster"), Self.item("back-issue.a")]))
        #expect(signed.transactions.map(\.productId) == ["com.example.advanced", "com.example.issue.a"])
    }

    /// A SKU is an identifier: a control character in it is an error naming its path.
    @Test func skuWithAControlCharacter_isAnErrorNamingItsPath() {
        #expect(
            throws: FormatError.invalidValue(
                path: "$.advancedCommerceInfo.items[1].SKU", line: 1, value: #""back\u0007""#, expected: "an identifier without control characters")
        ) { try SignedDataDecoder().transaction(Self.payload(items: [Self.item("back-issue.a"), Self.item(#"back\u0007"#)])) }
    }
}
