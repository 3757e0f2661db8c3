import Masthead
import MastheadFormats
import MastheadHTTP
import MastheadJSON

/// The catalog's routes: `GET /v1/publications`, `GET /v1/publications/{publicationId}/issues` and
/// `PUT /v1/publications/{publicationId}/issues/{issueId}` (publishing an issue, with the admin token).
extension ServiceRouter {
    /// The catalog routes, in the OpenAPI document's order.
    static let catalogRoutes: [Route] = [
        Route(
            ["GET"], "/v1/publications", .apiToken, label: "publications",
            .immediate { router, _, _ throws(AnyServiceFailure) in router.listPublications() }),
        Route(
            ["GET"], "/v1/publications/{publicationId}/issues", .apiToken, label: "publication_issues",
            .immediate { router, _, ids throws(AnyServiceFailure) in try router.listIssues(publicationId: ids[.publication]) }),
        Route(
            ["PUT"], "/v1/publications/{publicationId}/issues/{issueId}", .adminToken, label: "publish_issue",
            .deferred { router, request, ids, reply in
                router.publishIssue(request, publicationId: ids[.publication], issueId: ids[.issue], reply: reply)
            }),
    ]

    /// `GET /v1/publications`: the catalog's publications, in its order, each with its title and
    /// how many issues it has (published or not yet).
    func listPublications() -> HTTPResponse {
        var writer = JSONWriter(capacity: 1024)
        writer.beginObject()
        writer.key("publications")
        writer.beginArray()
        for publication in service.catalog.publications {
            writer.beginObject()
            writer.field("publication", publication.id)
            writer.field("title", publication.title)
            writer.field("issueCount", Int64(publication.issues.count))
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return .json(200, writer.bytes)
    }

    /// `GET /v1/publications/{publicationId}/issues`: the publication and its issues.
    func listIssues(publicationId: String) throws(AnyServiceFailure) -> HTTPResponse {
        guard let publication = service.catalog.publication(publicationId) else { throw AnyServiceFailure(ServiceError.unknownPublication(publicationId)) }
        var writer = JSONWriter(capacity: 2048)
        writer.beginObject()
        writer.field("publication", publication.id)
        writer.field("title", publication.title)
        writer.key("issues")
        writer.beginArray()
        for issue in publication.issues { EntitlementJSON.write(issue, into: &writer) }
        writer.endArray()
        writer.endObject()
        return .json(200, writer.bytes)
    }

    /// `PUT /v1/publications/{publicationId}/issues/{issueId}`: publishes or corrects an issue,
    /// answered with the issue once committed.
    func publishIssue(_ request: HTTPRequest, publicationId: String, issueId: String, reply: @escaping @Sendable (HTTPResponse) -> Void) {
        guard service.catalog.publication(publicationId) != nil else {
            return reply(ServiceError.unknownPublication(publicationId).response)
        }
        let root: JSONValue
        do { root = try JSONDocument(parsing: request.body).root } catch {
            return reply(ServiceError.invalidJSON(error).response)
        }
        guard root.kind == .object, let published = root["published"]?.string.flatMap(DateText.rfc3339) else {
            return reply(CatalogError.invalidIssue("expected {\"published\": RFC 3339 instant, \"title\": optional string, \"free\": optional boolean}").response)
        }
        if let free = root["free"], !free.isNull, free.bool == nil {
            return reply(CatalogError.invalidIssue("free must be true or false").response)
        }
        let issue = Issue(id: issueId, title: root["title"]?.string, published: published, isFree: root["free"]?.bool ?? false)
        service.publish(issue, in: publicationId) { result in
            switch result {
            case .success:
                var writer = JSONWriter(capacity: 256)
                EntitlementJSON.write(issue, into: &writer)
                reply(.json(200, writer.bytes))
            case .failure(let error):
                reply(ServiceError.notStored("issue", error).response)
            }
        }
    }
}
