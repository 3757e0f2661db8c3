import Masthead
import MastheadFormats
import MastheadHTTP
import MastheadJSON

/// A user's entitlements, `GET /v1/users/{userId}/entitlements`, and the download check,
/// `GET /v1/users/{userId}/issues/{publicationId}/{issueId}` (the hot path), with its gate
/// (`…/gate`, in ServiceRouter+Gate.swift), as of `at` in `environment`.
extension ServiceRouter {
    /// The entitlement routes, in the OpenAPI document's order.
    static let entitlementRoutes: [Route] = [
        Route(
            ["GET"], "/v1/users/{userId}/entitlements", .apiToken, label: "entitlements",
            .immediate { router, request, ids throws(AnyServiceFailure) in try router.entitlements(request, userId: ids[.user]) }),
        Route(
            ["GET"], "/v1/users/{userId}/issues/{publicationId}/{issueId}", .apiToken, label: "issue_check",
            .immediate { router, request, ids throws(AnyServiceFailure) in
                try router.issueCheck(request, userId: ids[.user], publicationId: ids[.publication], issueId: ids[.issue])
            }),
        Route(
            ["GET"], "/v1/users/{userId}/issues/{publicationId}/{issueId}/gate", .apiToken, label: "issue_gate",
            .immediate { router, request, ids throws(AnyServiceFailure) in
                try router.gate(request, userId: ids[.user], publicationId: ids[.publication], issueId: ids[.issue])
            }),
    ]

    /// `GET /v1/users/{userId}/entitlements`: every publication, or only `publication`, as of `at`.
    func entitlements(_ request: HTTPRequest, userId: String) throws(AnyServiceFailure) -> HTTPResponse {
        let query = try asOf(request)
        let history: PurchaseHistory?
        do { history = try service.history(forUser: userId) } catch { throw AnyServiceFailure(ServiceError.storeUnavailable(error)) }
        guard let history else { throw AnyServiceFailure(ServiceError.unknownUser(userId)) }
        let catalog = service.catalog
        let engine = EntitlementEngine(catalog: catalog)
        var answer = engine.evaluate(history, at: query.at, environment: query.environment)
        if let publicationId = request.queryValue("publication") {
            guard let publication = catalog.publication(publicationId) else { throw AnyServiceFailure(ServiceError.unknownPublication(publicationId)) }
            answer.publications = [engine.evaluate(history, publication: publication, at: query.at, environment: query.environment)]
        }
        var writer = JSONWriter(capacity: 4096)
        EntitlementJSON.write(answer, userId: userId, into: &writer)
        return .json(200, writer.bytes)
    }

    /// The download check: the hot path.
    func issueCheck(_ request: HTTPRequest, userId: String, publicationId: String, issueId: String) throws(AnyServiceFailure) -> HTTPResponse {
        guard let answer = try checkAnswer(request, userId: userId, publicationId: publicationId, issueId: issueId) else {
            throw AnyServiceFailure(missing(publicationId: publicationId, issueId: issueId))
        }
        return .json(200, answer.body)
    }

    /// The download check's answer as of the request's `at` in its `environment`, its body
    /// cached per (user, issue) (``EntitlementService/checkAnswer(forUser:publicationId:issueId:at:environment:write:)``);
    /// nil when the catalog has no such publication or issue.
    func checkAnswer(
        _ request: HTTPRequest, userId: String, publicationId: String, issueId: String
    ) throws(AnyServiceFailure) -> EntitlementService.CheckAnswer? {
        let query = try asOf(request)
        do {
            return try service.checkAnswer(forUser: userId, publicationId: publicationId, issueId: issueId, at: query.at, environment: query.environment) { entitlement in
                guard let index = entitlement.publication.index(ofIssue: issueId), let access = entitlement.access(toIssue: issueId) else { return nil }
                var writer = JSONWriter(capacity: 640)
                let at = EntitlementJSON.writeCheck(entitlement.publication.issues[index], access, entitlement, userId: userId, into: &writer)
                return (writer.bytes, at, access.isReadable, access.reasonName)
            }
        } catch {
            throw AnyServiceFailure(ServiceError.storeUnavailable(error))
        }
    }

    /// Why a check found no answer: the catalog has no such publication, or no such issue in it.
    func missing(publicationId: String, issueId: String) -> any ServiceFailure {
        guard service.catalog.publication(publicationId) != nil else { return ServiceError.unknownPublication(publicationId) }
        return EntitlementError.unknownIssue(publicationId: publicationId, issueId: issueId)
    }

    /// The `at` and `environment` query parameters (now and production when absent).
    func asOf(_ request: HTTPRequest) throws(AnyServiceFailure) -> (at: Instant, environment: Environment) {
        let at: Instant
        if let bytes = request.queryValueBytes("at") {
            // ASCII is read from its bytes (its string would hold the same ones).
            if !bytes.contains(where: { $0 >= 0x80 }), let instant = bytes.withUnsafeBufferPointer({ DateText.rfc3339(bytes: $0) }) {
                at = instant
            } else {
                let text = request.queryValue("at") ?? ""
                guard let instant = DateText.rfc3339(text) else { throw AnyServiceFailure(HintedFailure.hinted(EntitlementError.invalidAt, ServiceRouter.atHint(text))) }
                at = instant
            }
        } else {
            // The clock is read only when the request names no instant.
            at = service.clock()
        }
        var environment = Environment.production
        if let text = request.queryValue("environment") {
            guard let value = Environment(rawValue: text) else { throw AnyServiceFailure(EntitlementError.invalidEnvironment) }
            environment = value
        }
        return (at, environment)
    }

    /// The hint for an `at` query parameter that a `+` sent unencoded broke (a query's `+`
    /// decodes to a space, as in the offset `+02:00`): nil unless the text with its last space
    /// read as `+` is an RFC 3339 instant.
    static func atHint(_ text: String) -> String? {
        guard let space = text.lastIndex(of: " ") else { return nil }
        var meant = text
        meant.replaceSubrange(space...space, with: "+")
        guard DateText.rfc3339(meant) != nil else { return nil }
        return "it holds a space where a '+' was probably sent: in a query a bare '+' means a space, so encode it as %2B "
            + "(at=2020-07-02T02:00:00%2B02:00)"
    }
}
