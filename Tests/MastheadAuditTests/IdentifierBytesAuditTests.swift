import Foundation
import Masthead
import MastheadAudit
import MastheadJSON
import MastheadReports
import Testing

/// A user id is its exact bytes in an audit: two spellings that Swift's `String ==` takes for one
/// (precomposed and decomposed) are two users, whose grants are reconciled apart, whether the
/// users come from a receipts file or from the service's database; a look-alike user is a third.
struct IdentifierBytesAuditTests {
    static let precomposed = "caf\u{E9}"
    static let decomposed = "cafe\u{301}"
    static let lookAlike = "c\u{430}f\u{E9}"

    /// The first spelling subscribed (Table 6-1: lapsed in May) and was served March while
    /// subscribed; the second bought the May issue on 1 July and was served it on 2 July; the
    /// look-alike has no receipt.
    static let grants = [
        "\(precomposed),the-monthly,2020-03,2020-03-05T00:00:00Z", "\(decomposed),the-monthly,2020-05,2020-07-02T00:00:00Z",
        "\(lookAlike),the-monthly,2020-05,2020-07-02T00:00:00Z",
    ]

    @Test(arguments: [false, true]) func grantsOfTwoSpellings_areReconciledApart(fromDatabase: Bool) throws {
        let fixture = try AuditFixture()
        defer { fixture.remove() }
        let users = [(id: Self.precomposed, receipt: "table-6-1"), (id: Self.decomposed, receipt: "single-issue")]
        let source: AuditConfiguration.Source =
            fromDatabase
            ? .database(path: try fixture.database(users))
            : .receipts(path: try fixture.file("receipts.jsonl", try users.map { try AuditFixture.line($0.id, $0.receipt) }))
        let configuration = AuditConfiguration(
            catalog: AuditFixture.catalog, source: source, instants: [AuditFixture.instant("2020-07-10T00:00:00Z")],
            grantsPath: try fixture.file("grants.csv", ["user_id,publication,issue_id,granted_at"] + Self.grants))
        let (result, sink) = try AuditFixture.run(configuration)
        let lines = try sink.lines.map { try JSONDocument(parsing: $0).root }
        let byUser = Dictionary(grouping: lines) { Array(($0["user_id"]?.string ?? "").utf8) }
        #expect(byUser.count == 2)
        // One instant: each line holds its answer.
        let first = try #require(byUser[Array(Self.precomposed.utf8)]?.first)
        let second = try #require(byUser[Array(Self.decomposed.utf8)]?.first)
        // Neither was served an issue they could not read: nothing over-granted, for either.
        #expect(first["overGranted"] != nil && ReconciliationTests.issues(first["overGranted"]).isEmpty)
        #expect(second["overGranted"] != nil && ReconciliationTests.issues(second["overGranted"]).isEmpty)
        #expect(result.summary.total(.overGranted) == [0])
        #expect(second["readable"]?.elements.map { $0.string } == ["2020-05"])
        // The look-alike's grant belongs to no audited user.
        #expect(result.summary.unknownGrantUsers == 1)
    }

    /// Two products whose ids are two spellings of one name are counted apart in the summary,
    /// whose columns are laid out by Unicode scalars (as the Spark job reads them).
    @Test func productsOfTwoSpellings_areCountedApart_inColumnsOfScalars() throws {
        let fixture = try AuditFixture()
        defer { fixture.remove() }
        let products = [Self.precomposed, Self.decomposed].map {
            Product(productId: $0, type: .autoRenewable, publications: ["the-monthly"], access: .archive)
        }
        let catalog = Catalog(publications: AuditFixture.catalog.publications, products: Array(AuditFixture.catalog.products.values) + products)
        // Two users of the first product, one of the second (JSON escapes: the ids' exact scalars).
        let lines = [("u1", "caf\\u00e9", "1"), ("u2", "caf\\u00e9", "2"), ("u3", "cafe\\u0301", "3")].map { user, product, id in
            #"{"user_id": "\#(user)", "receipt": {"status": 0, "latest_receipt_info": [{"transaction_id": "\#(id)", "original_transaction_id": "\#(id)", "#
                + #""product_id": "\#(product)", "purchase_date_ms": "1590000000000", "expires_date_ms": "1600000000000"}]}}"#
        }
        let configuration = AuditConfiguration(
            catalog: catalog, source: .receipts(path: try fixture.file("receipts.jsonl", lines)), instants: [AuditFixture.instant("2020-07-10T00:00:00Z")])
        let (result, _) = try AuditFixture.run(configuration)
        #expect(result.summary.products.map { Array($0.utf8) } == [Array(Self.decomposed.utf8), Array(Self.precomposed.utf8)])
        // Each product's row, its cell in the column of the "lines read" row's, counted in scalars.
        let rows = result.summary.rendered.split(separator: "\n").map { Array($0.unicodeScalars) }
        let linesRead = try #require(rows.first { $0.starts(with: "  lines read".unicodeScalars) })
        let column = try #require(linesRead.firstIndex { $0.properties.numericType != nil })
        for (product, cell) in [(Self.precomposed, "2 / 2"), (Self.decomposed, "1 / 1")] {
            let row = try #require(rows.first { $0.starts(with: "    \(product) ".unicodeScalars) })
            #expect(String(String.UnicodeScalarView(row[column...])) == cell)
        }
    }
}
