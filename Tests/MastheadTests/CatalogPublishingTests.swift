import Masthead
import Testing

/// Issues published through the service join the catalog as the service, the stored-reader
/// commands and the database audit all see them: added, corrected in place, and left out when
/// their publication is not in the catalog; the publication id is matched by its exact bytes.
struct CatalogPublishingTests {
    @Test func publishing_addsNewIssues_correctsKnownOnes_andLeavesOutUnknownPublications() {
        let catalog = Mock.catalog()
        let published = catalog.publishing([
            (publicationId: "the-monthly", issue: Issue(id: "2021-01", published: Mock.instant("2021-01-01T00:00"))),
            (publicationId: "the-monthly", issue: Issue(id: "2020-03", title: "corrected", published: Mock.instant("2020-03-02T00:00"))),
            (publicationId: "the-annual", issue: Issue(id: "2020", published: Mock.instant("2020-12-01T00:00"))),
            (publicationId: "the-monthl\u{79}\u{308}", issue: Issue(id: "x", published: Mock.instant("2020-12-01T00:00"))),
        ])
        let monthly = published.publication("the-monthly")
        #expect(monthly?.issues.count == 13)
        #expect(monthly?.index(ofIssue: "2021-01") != nil)
        #expect(monthly?.index(ofIssue: "2020-03").map { monthly!.issues[$0].title } == "corrected")
        #expect(monthly?.index(ofIssue: "x") == nil)
        #expect(published.publication("the-annual") == nil)
        #expect(published.publications.count == catalog.publications.count)
        // The catalog it came from is unchanged (a value).
        #expect(catalog.publication("the-monthly")?.issues.count == 12)
    }
}
