import Masthead
import MastheadHTTP
import MastheadJSON
import MastheadReports

/// What a support agent asks about one reader, with the admin token: the timeline picture,
/// `GET /v1/users/{userId}/timeline.svg`, and the one-paragraph answer about an issue,
/// `GET /v1/users/{userId}/issues/{publicationId}/{issueId}/explanation`, as of `at` in `environment`.
extension ServiceRouter {
    /// The explanation routes, in the OpenAPI document's order.
    static let explanationRoutes: [Route] = [
        Route(
            ["GET"], "/v1/users/{userId}/timeline.svg", .adminToken, label: "timeline_svg",
            .immediate { router, request, ids throws(AnyServiceFailure) in try router.timeline(request, userId: ids[.user]) }),
        Route(
            ["GET"], "/v1/users/{userId}/issues/{publicationId}/{issueId}/explanation", .adminToken, label: "issue_explanation",
            .immediate { router, request, ids throws(AnyServiceFailure) in
                try router.explanation(request, userId: ids[.user], publicationId: ids[.publication], issueId: ids[.issue])
            }),
    ]

    /// The headers of the picture: SVG that a browser never sniffs as another type, and that may
    /// run nothing and fetch nothing when opened on its own (its styles are inline).
    static let timelineHeaders: [(name: String, value: String)] = [
        ("Content-Type", "image/svg+xml; charset=utf-8"), ("X-Content-Type-Options", "nosniff"),
        ("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'"),
    ]

    /// `GET /v1/users/{userId}/timeline.svg`: the picture `masthead timeline` draws of the user's
    /// stored history, every publication (or only `publication`), headed by the user id.
    func timeline(_ request: HTTPRequest, userId: String) throws(AnyServiceFailure) -> HTTPResponse {
        let query = try asOf(request)
        let history = try storedHistory(forUser: userId)
        let catalog = service.catalog
        let engine = EntitlementEngine(catalog: catalog)
        let entitlements: [PublicationEntitlement]
        if let publicationId = request.queryValue("publication") {
            guard let publication = catalog.publication(publicationId) else { throw AnyServiceFailure(ServiceError.unknownPublication(publicationId)) }
            entitlements = [engine.evaluate(history, publication: publication, at: query.at, environment: query.environment)]
        } else {
            entitlements = engine.evaluate(history, at: query.at, environment: query.environment).publications
        }
        let chart = TimelineChart(reader: userId, entitlements: entitlements, history: history)
        return HTTPResponse(status: 200, headers: ServiceRouter.timelineHeaders, body: Array(chart.svg.utf8))
    }

    /// `GET /v1/users/{userId}/issues/{publicationId}/{issueId}/explanation`: whether the user
    /// can read the issue, and why, in one paragraph
    /// (``PublicationEntitlement/paragraph(aboutIssue:)``).
    func explanation(_ request: HTTPRequest, userId: String, publicationId: String, issueId: String) throws(AnyServiceFailure) -> HTTPResponse {
        let query = try asOf(request)
        guard let publication = service.catalog.publication(publicationId) else { throw AnyServiceFailure(ServiceError.unknownPublication(publicationId)) }
        guard let index = publication.index(ofIssue: issueId) else {
            throw AnyServiceFailure(EntitlementError.unknownIssue(publicationId: publicationId, issueId: issueId))
        }
        let history = try storedHistory(forUser: userId)
        let entitlement = EntitlementEngine(catalog: service.catalog).evaluate(
            history, publication: publication, at: query.at, environment: query.environment)
        let issue = publication.issues[index]
        var writer = JSONWriter(capacity: 1024)
        writer.beginObject()
        writer.field("userId", userId)
        writer.field("publication", publication.id)
        writer.field("issue", issue.id)
        writer.field("title", issue.title)
        writer.field("at", query.at.description)
        writer.field("readable", entitlement.access(toIssue: issue.id)?.isReadable == true)
        writer.field("explanation", entitlement.paragraph(aboutIssue: issue.id) ?? "")
        writer.endObject()
        return .json(200, writer.bytes)
    }

    /// The user's stored history; 404 `unknown_user` for a user never seen.
    private func storedHistory(forUser userId: String) throws(AnyServiceFailure) -> PurchaseHistory {
        let history: PurchaseHistory?
        do { history = try service.history(forUser: userId) } catch { throw AnyServiceFailure(ServiceError.storeUnavailable(error)) }
        guard let history else { throw AnyServiceFailure(ServiceError.unknownUser(userId)) }
        return history
    }
}
