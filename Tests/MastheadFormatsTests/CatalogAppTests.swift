import Masthead
import MastheadFormats
import Testing

/// catalog.json's optional `"app"` object: the app whose signed data the catalog serves.
struct CatalogAppTests {
    static func document(_ app: String) throws -> CatalogDocument {
        try CatalogDecoder().decodeDocument(Array(#"{"app": \#(app), "publications": [], "products": []}"#.utf8))
    }

    @Test func shippedCatalog_namesItsApp() throws {
        let document = try CatalogDecoder().decodeDocument(Fixtures.example("catalog.json"))
        #expect(document.app == CatalogApp(bundleId: "com.example.magazine"))
        #expect(document.catalog.publication("the-monthly") != nil)
    }

    @Test func app_withAppAppleId_orAbsent() throws {
        #expect(try Self.document(#"{"bundleId": "com.example.app", "appAppleId": 1234567890}"#).app == CatalogApp(bundleId: "com.example.app", appAppleId: 1_234_567_890))
        #expect(try Self.document("null").app == nil)
        #expect(try CatalogDecoder().decodeDocument(Array(#"{"publications": [], "products": []}"#.utf8)).app == nil)
    }

    @Test(arguments: [
        (#"{"appAppleId": 1}"#, "$.app.bundleId: missing"),
        (#"{"bundleId": 7}"#, "$.app.bundleId: expected a non-empty string, found 7"),
        (#"{"bundleId": "b", "appAppleId": "1"}"#, #"$.app.appAppleId: expected the app's positive whole-number App Apple ID, found "1""#),
        (#"{"bundleId": "b", "appAppleId": 0}"#, "$.app.appAppleId: expected the app's positive whole-number App Apple ID, found 0"),
        (#"["b"]"#, #"$.app: expected an object with "bundleId" (and "appAppleId"), found an array"#),
    ])
    func app_ofTheWrongShape_isAProblemWithItsPath(app: String, problem: String) throws {
        #expect {
            _ = try Self.document(app)
        } throws: { error in
            guard case FormatError.invalidCatalog(_, let problems) = error else { return false }
            return problems.map { "\($0.path): \($0.message)" } == [problem]
        }
    }
}
