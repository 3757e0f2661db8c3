import Masthead
import MastheadFormats
import MastheadTestSupport
import Testing

/// The shipped example receipts, decoded and decided end to end (formats + engine).
struct ShippedReceiptTests {
    static func evaluate(_ name: String, at: String) throws -> PublicationEntitlement {
        let catalog = try CatalogDecoder().decode(Fixtures.example("catalog.json"))
        let receipt = try ReceiptDecoder(catalog: catalog)
            .decode(Fixtures.example("receipts/\(name).json"))
        let result = EntitlementEngine(catalog: catalog).evaluate(receipt.history, at: DateText.rfc3339(at)!)
        #expect(result.publications.count == 1)
        return try #require(result.publications.first)
    }

    /// The rows of Table 6-1, shared with the signed reader's test.
    static let table61: [(at: String, state: SubscriptionState, readable: [String])] = Table61.rows.map { row in
        (row.at, SubscriptionState(rawValue: row.state)!, row.readable)
    }

    @Test(arguments: table61)
    func table61_receipt_rowByRow(row: (at: String, state: SubscriptionState, readable: [String])) throws {
        let result = try Self.evaluate("table-6-1", at: row.at)
        #expect(result.status.state == row.state)
        #expect(result.readableIssueIds == row.readable)
    }

    static let table62: [(at: String, state: SubscriptionState, readable: [String])] = [
        ("2020-02-20T12:00:00Z", .active, ["2020-01", "2020-02"]),
        ("2020-03-20T12:00:00Z", .active, ["2020-01", "2020-02", "2020-03"]),
        ("2020-04-19T12:00:00Z", .active, ["2020-01", "2020-02", "2020-03", "2020-04"]),
        ("2020-04-20T12:00:00Z", .expired, []),
        ("2020-05-05T12:00:00Z", .active, ["2020-01", "2020-02", "2020-03", "2020-04", "2020-05"]),
        ("2020-06-05T12:00:00Z", .active, ["2020-01", "2020-02", "2020-03", "2020-04", "2020-05", "2020-06"]),
        ("2020-07-01T12:00:00Z", .active, ["2020-02", "2020-03", "2020-04", "2020-05", "2020-06", "2020-07"]),
    ]

    @Test(arguments: table62)
    func table62_receipt_rowByRow_windowOfSix(row: (at: String, state: SubscriptionState, readable: [String])) throws {
        let result = try Self.evaluate("table-6-2", at: row.at)
        #expect(result.status.state == row.state)
        #expect(result.readableIssueIds == row.readable)
    }

    @Test func refund_upgrade_grace_passes_singleIssue() throws {
        let refund = try Self.evaluate("refund", at: "2020-06-01T00:00:00Z")
        #expect(refund.readableIssueIds == ["2020-03", "2020-04"])
        #expect(refund.refunded.map(\.transactionId) == ["3000002"])
        #expect(try Self.evaluate("refund", at: "2020-04-14T00:00:00Z").status.state == .active)

        let upgrade = try Self.evaluate("upgrade", at: "2020-06-01T00:00:00Z")
        #expect(upgrade.periods.count == 1)
        #expect(upgrade.readableIssueIds == ["2020-02", "2020-03", "2020-04", "2020-05"])
        #expect(try Self.evaluate("upgrade", at: "2020-05-01T00:00:00Z").status.hasPendingPlanChange)

        #expect(try Self.evaluate("grace", at: "2020-06-10T00:00:00Z").status.state == .gracePeriod)
        #expect(try Self.evaluate("grace", at: "2020-06-20T00:00:00Z").status.state == .billingRetry)
        #expect(try Self.evaluate("grace", at: "2020-08-15T00:00:00Z").status.state == .expired)

        let passes = try Self.evaluate("stacked-passes", at: "2020-12-31T00:00:00Z")
        #expect(passes.periods.map { $0.end.description } == ["2020-05-29T10:00:00Z", "2020-09-15T10:00:00Z"])
        #expect(passes.readableIssueIds == ["2020-01", "2020-02", "2020-03", "2020-04", "2020-05", "2020-08", "2020-09", "2020-12"])

        let single = try Self.evaluate("single-issue", at: "2020-07-02T00:00:00Z")
        #expect(single.readable.map(\.reasons) == [[.singlePurchase(transactionId: "7000001")]])
    }
}
