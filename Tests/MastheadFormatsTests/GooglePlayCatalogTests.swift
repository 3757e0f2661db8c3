import Masthead
import MastheadFormats
import Testing

/// catalog.json's `"googlePlay"` key (R3, R18): the Play ids a product is sold by.
struct GooglePlayCatalogTests {
    static func problems(_ products: String) -> [CatalogProblem] {
        let text = #"{"publications": [{"id": "p", "issues": [{"id": "a", "published": "2020-02-01T00:00:00Z"}]}], "products": ["# + products + "]}"
        do {
            _ = try CatalogDecoder().decode(Array(text.utf8))
            return []
        } catch {
            guard case .invalidCatalog(_, let problems) = error else {
                Issue.record("\(error)")
                return []
            }
            return problems
        }
    }

    @Test func shippedCatalog_namesItsPlayIds_andFindsProductsByThem() throws {
        let catalog = try CatalogDecoder().decode(Fixtures.example("catalog.json"))
        #expect(catalog.product("com.example.monthly")?.googlePlay == GooglePlayProductIds(productId: "the_monthly", basePlanIds: ["monthly"]))
        #expect(catalog.product(googlePlayProductId: "the_monthly", basePlanId: "monthly")?.productId == "com.example.monthly")
        #expect(catalog.product(googlePlayProductId: "the_monthly", basePlanId: "premium-monthly")?.productId == "com.example.monthly.premium")
        #expect(catalog.product(googlePlayProductId: "issue_2020_05", basePlanId: nil)?.productId == "com.example.issue.2020-05")
        #expect(catalog.product(googlePlayProductId: "the_monthly", basePlanId: nil) == nil)
        #expect(catalog.product(googlePlayProductId: "the_monthly", basePlanId: "yearly") == nil)
        #expect(catalog.product(googlePlayProductId: "issue_2020_05", basePlanId: "monthly") == nil)
    }

    /// Play ids are their exact bytes: another spelling finds nothing.
    @Test func playIds_areExactBytes() throws {
        let text = #"{"publications": [{"id": "p", "issues": []}], "products": [{"productId": "x", "type": "autoRenewable", "publications": ["p"], "access": "archive", "googlePlay": {"productId": "caf\u00e9", "basePlanIds": ["m"]}}]}"#
        let catalog = try CatalogDecoder().decode(Array(text.utf8))
        #expect(catalog.product(googlePlayProductId: "caf\u{E9}", basePlanId: "m")?.productId == "x")
        #expect(catalog.product(googlePlayProductId: "cafe\u{301}", basePlanId: "m") == nil)
    }

    @Test func unknownKeyInGooglePlay_isAProblem_withTheNearestKey() {
        let problems = Self.problems(
            #"{"productId": "x", "type": "autoRenewable", "publications": ["p"], "access": "archive", "googlePlay": {"productId": "m", "basePlanId": ["a"]}}"#)
        #expect(problems.map(\.path) == ["$.products[0].googlePlay.basePlanId", "$.products[0].googlePlay.basePlanIds"])
        #expect(problems.first?.message == #"unknown key "basePlanId"; did you mean "basePlanIds"?"#)
        let misspelt = Self.problems(#"{"productId": "x", "type": "issue", "publication": "p", "issue": "a", "googlePlai": {"productId": "m"}}"#)
        #expect(misspelt.map(\.message) == [#"unknown key "googlePlai"; did you mean "googlePlay"?"#])
    }

    @Test func shapes_areChecked_withTheirPaths() {
        let problems = Self.problems(
            #"""
            {"productId": "a", "type": "autoRenewable", "publications": ["p"], "access": "archive", "googlePlay": {"productId": "m", "basePlanIds": []}},
            {"productId": "b", "type": "issue", "publication": "p", "issue": "a", "googlePlay": {"productId": "i", "basePlanIds": ["x"]}},
            {"productId": "c", "type": "free", "publications": ["p"], "access": "archive", "googlePlay": "f"},
            {"productId": "d", "type": "autoRenewable", "publications": ["p"], "access": "archive", "googlePlay": {"productId": "", "basePlanIds": ["x", 3, "x"]}}
            """#)
        #expect(problems.map(\.path) == [
            "$.products[0].googlePlay.basePlanIds", "$.products[1].googlePlay.basePlanIds", "$.products[2].googlePlay",
            "$.products[3].googlePlay.productId", "$.products[3].googlePlay.basePlanIds[1]", "$.products[3].googlePlay.basePlanIds[2]",
        ])
    }

    /// One Play (product id, base plan) buys one catalog product; a Play product id is a
    /// subscription or a one-time product, not both.
    @Test func onePlayIdMappedToTwoProducts_isRefused() {
        let problems = Self.problems(
            #"""
            {"productId": "a", "type": "autoRenewable", "publications": ["p"], "access": "archive", "googlePlay": {"productId": "m", "basePlanIds": ["monthly"]}},
            {"productId": "b", "type": "autoRenewable", "publications": ["p"], "access": "streaming", "googlePlay": {"productId": "m", "basePlanIds": ["yearly", "monthly"]}},
            {"productId": "c", "type": "nonRenewing", "duration": "P1M", "publications": ["p"], "access": "archive", "googlePlay": {"productId": "m"}},
            {"productId": "d", "type": "issue", "publication": "p", "issue": "a", "googlePlay": {"productId": "one"}},
            {"productId": "e", "type": "issue", "publication": "p", "issue": "a", "googlePlay": {"productId": "one"}}
            """#)
        #expect(problems.map(\.path) == [
            "$.products[1].googlePlay.basePlanIds[1]", "$.products[2].googlePlay.productId", "$.products[4].googlePlay.productId",
        ])
        #expect(problems.first?.message == #"Google Play base plan "m"/"monthly" buys another product too, named first at $.products[0].googlePlay.basePlanIds[0]"#)
    }

    /// `googlePlay:` names the Play products the catalog does not know: no catalog product id
    /// may begin with it.
    @Test func productIdWithThePlayPrefix_isRefused() {
        let problems = Self.problems(#"{"productId": "googlePlay:the_monthly/yearly", "type": "issue", "publication": "p", "issue": "a"}"#)
        #expect(problems.map(\.path) == ["$.products[0].productId"])
        #expect(problems.first?.message.contains("names Google Play products the catalog does not know") == true)
    }
}
