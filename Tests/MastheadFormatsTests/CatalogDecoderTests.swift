import Masthead
import MastheadFormats
import Testing

/// catalog.json (R3): the shipped example loads; every kind of problem is reported with its JSON path.
struct CatalogDecoderTests {
    @Test func shippedCatalog_loads_withOneProductOfEveryType() throws {
        let catalog = try CatalogDecoder().decode(Fixtures.example("catalog.json"))
        let monthly = try #require(catalog.publication("the-monthly"))
        #expect(monthly.issues.count == 12)
        #expect(monthly.issues.first?.published.description == "2020-01-01T00:00:00Z")
        #expect(monthly.issues.filter(\.isFree).map(\.id) == ["2020-12"])
        #expect(Set(catalog.products.values.map(\.type)) == Set(ProductType.allCases))
        #expect(catalog.product("com.example.reader")?.window == 6)
        #expect(catalog.product("com.example.pass.3m")?.duration == CalendarDuration(months: 3))
    }

    @Test func publishedDates_acceptAnyOffset() throws {
        let text = #"""
            {"publications": [{"id": "p", "issues": [{"id": "a", "published": "2020-02-01T09:00:00+09:00"}]}], "products": []}
            """#
        let catalog = try CatalogDecoder().decode(Array(text.utf8))
        #expect(catalog.publication("p")?.issues.first?.published.description == "2020-02-01T00:00:00Z")
    }

    /// A misspelt optional key must not change what readers get in silence: `"windw": 6` would
    /// give a streaming reader the whole back catalogue, `"isFree"` would make the free issue
    /// paid. Every unknown key, at every level, is a problem with its path and the nearest key.
    @Test func unknownKeys_areProblems_withTheirPathAndTheNearestKnownKey() {
        let text = #"""
            {"publications": [{"id": "p", "house": "ours", "issues": [{"id": "a", "published": "2020-02-01T00:00:00Z", "isFree": true}]}],
             "products": [{"productId": "r", "type": "autoRenewable", "publications": ["p"], "access": "streaming", "windw": 6}],
             "app": {"bundleId": "com.example", "appAppleID": 1}, "publisher": {"name": "Example"}, "PRODUCTS": []}
            """#
        do {
            _ = try CatalogDecoder().decode(Array(text.utf8), file: "typos.json")
            Issue.record("accepted a catalog with unknown keys")
        } catch {
            guard case .invalidCatalog(_, let problems) = error else { Issue.record("\(error)"); return }
            #expect(problems.map(\.path) == [
                "$.publisher", "$.PRODUCTS", "$.publications[0].house", "$.publications[0].issues[0].isFree", "$.products[0].windw", "$.app.appAppleID",
            ])
            #expect(problems.map(\.message) == [
                #"unknown key "publisher""#,
                #"unknown key "PRODUCTS"; did you mean "products"?"#,
                #"unknown key "house""#,
                #"unknown key "isFree"; did you mean "free"?"#,
                #"unknown key "windw"; did you mean "window"?"#,
                #"unknown key "appAppleID"; did you mean "appAppleId"?"#,
            ])
            #expect(error.description.contains("typos.json"))
        }
    }

    /// Keys are compared by their exact bytes: a key that only looks like a known one (another
    /// Unicode spelling) is unknown.
    @Test func unknownKeys_comparedByExactBytes() {
        // "free" with a Cyrillic "е" (U+0435).
        let text = "{\"publications\": [{\"id\": \"p\", \"issues\": [{\"id\": \"a\", \"published\": \"2020-02-01T00:00:00Z\", \"fr\u{0435}e\": true}]}], \"products\": []}"
        #expect(throws: FormatError.self) { try CatalogDecoder().decode(Array(text.utf8)) }
    }

    static let broken = #"""
        {
          "publications": [
            {"id": "p", "issues": [{"id": "a", "published": "2020-02-01"}, {"id": "b", "published": "2020-03-01T00:00:00Z", "free": "yes"},
                                   {"id": "b", "published": "2020-04-01T00:00:00Z"}]},
            {"id": "p", "issues": []},
            {"title": "no id", "issues": []}
          ],
          "products": [
            {"productId": "m", "type": "autoRenewable", "publications": ["p", "nowhere"], "access": "archive"},
            {"productId": "m", "type": "autoRenewable", "publications": ["p"], "access": "archive"},
            {"productId": "n", "type": "nonRenewing", "publications": ["p"], "access": "archive"},
            {"productId": "n2", "type": "nonRenewing", "duration": "P1H", "publications": ["p"], "access": "archive"},
            {"productId": "s", "type": "autoRenewable", "publications": ["p"], "access": "sometimes", "window": 0},
            {"productId": "i", "type": "issue", "publication": "p", "issue": "zz"},
            {"productId": "j", "type": "issue", "publication": "q", "issue": "a"},
            {"productId": "k", "type": "lifetime"}
          ]
        }
        """#

    @Test func everyProblem_isReportedWithItsPath() {
        do {
            _ = try CatalogDecoder().decode(Array(Self.broken.utf8), file: "broken.json")
            Issue.record("accepted a broken catalog")
        } catch {
            guard case .invalidCatalog(let file, let problems) = error else { Issue.record("\(error)"); return }
            #expect(file == "broken.json")
            let paths = problems.map(\.path)
            #expect(paths == [
                "$.publications[0].issues[0].published",
                "$.publications[0].issues[1].free",
                "$.publications[0].issues[2].id",
                "$.publications[1].id",
                "$.publications[2].id",
                "$.products[0].publications[1]",
                "$.products[1].productId",
                "$.products[2].duration",
                "$.products[3].duration",
                "$.products[4].access",
                "$.products[4].window",
                "$.products[5].issue",
                "$.products[6].publication",
                "$.products[7].type",
            ])
            #expect(problems[0].message.contains("\"2020-02-01\""))
            #expect(problems[2].message.contains("duplicate issue id \"b\""))
            #expect(problems[3].message.contains("duplicate publication id \"p\""))
            #expect(problems[5].message.contains("unknown publication \"nowhere\""))
            #expect(problems[7].message == "missing")
            #expect(error.description.contains("broken.json"))
        }
    }

    @Test func invalidJSON_isReportedWithLine() {
        #expect(throws: FormatError.self) { try CatalogDecoder().decode(Array("{\"publications\": [}".utf8)) }
    }
}
