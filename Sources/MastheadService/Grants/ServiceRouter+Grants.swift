import Masthead
import MastheadFormats
import MastheadHTTP
import MastheadJSON

/// The routes of publishers' grants (R17), with the admin token: `GET /v1/users/{userId}/grants`,
/// and `PUT` and `DELETE /v1/users/{userId}/grants/{grantId}`.
extension ServiceRouter {
    /// The grant routes, in the OpenAPI document's order.
    static let grantRoutes: [Route] = [
        Route(
            ["GET"], "/v1/users/{userId}/grants", .adminToken, label: "grants",
            .immediate { router, _, ids throws(AnyServiceFailure) in try router.grants(userId: ids[.user]) }),
        Route(
            ["PUT", "DELETE"], "/v1/users/{userId}/grants/{grantId}", .adminToken, label: "grant",
            .deferred { router, request, ids, reply in
                if request.method == "DELETE" {
                    router.revokeGrant(userId: ids[.user], grantId: ids[.grant], reply: reply)
                } else {
                    router.putGrant(request, userId: ids[.user], grantId: ids[.grant], reply: reply)
                }
            }),
    ]

    /// `GET /v1/users/{userId}/grants`: the user's grants, each with every field.
    func grants(userId: String) throws(AnyServiceFailure) -> HTTPResponse {
        try userList(userId: userId, key: "grants", bytesPerElement: 256, read: { try service.grants(forUser: userId) }) { grant, writer in
            ServiceRouter.write(grant, into: &writer)
        }
    }

    /// `PUT /v1/users/{userId}/grants/{grantId}`: stores the grant the body describes, replacing
    /// one of the user's with the same id entirely; answers 201 when it is new, 200 when it
    /// replaced one (changed or not), with the grant as stored, once committed.
    func putGrant(_ request: HTTPRequest, userId: String, grantId: String, reply: @escaping @Sendable (HTTPResponse) -> Void) {
        let grant: Grant
        do throws(AnyServiceFailure) { grant = try ServiceRouter.grant(request.body, grantId: grantId, catalog: service.catalog) } catch {
            return reply(error.failure.response)
        }
        service.putGrant(grant, userId: userId) { result in
            switch result {
            case .success(let written): reply(ServiceRouter.answer(written.grant, status: written.added ? 201 : 200))
            case .failure(let error):
                if let grantId = EntitlementService.grantHeldByAnotherUser(error) { return reply(GrantError.belongsToAnotherUser(grantId: grantId).response) }
                reply(ServiceError.notStored("grant", error).response)
            }
        }
    }

    /// `DELETE /v1/users/{userId}/grants/{grantId}`: revokes the grant now (it stays, with
    /// `revokedAt`; one revoked already keeps its revocation), answered with the grant once committed.
    func revokeGrant(userId: String, grantId: String, reply: @escaping @Sendable (HTTPResponse) -> Void) {
        service.revokeGrant(grantId, userId: userId) { result in
            switch result {
            case .success(let revoked?): reply(ServiceRouter.answer(revoked, status: 200))
            case .success(nil): reply(GrantError.unknown(userId: userId, grantId: grantId).response)
            case .failure(let error): reply(ServiceError.notStored("revocation of the grant", error).response)
            }
        }
    }

    /// The grant a PUT body describes, its id the path's: valid JSON (else `invalid_json`), a
    /// valid grant (``GrantDecoder``) whose publications the catalog has and whose source and
    /// issue ids are at most ``PathIdentifier/maxBytes`` bytes (else `invalid_grant`, naming the
    /// field and its line).
    static func grant(_ body: [UInt8], grantId: String, catalog: Catalog) throws(AnyServiceFailure) -> Grant {
        let root: JSONValue
        do { root = try JSONDocument(parsing: body).root } catch { throw AnyServiceFailure(ServiceError.invalidJSON(error)) }
        let grant: Grant
        do { grant = try GrantDecoder.grant(root, grantId: grantId) } catch { throw AnyServiceFailure(GrantError.invalidGrant(error.description)) }
        if let problem = problem(of: grant, in: root, catalog: catalog) { throw AnyServiceFailure(GrantError.invalidGrant(problem.description)) }
        return grant
    }

    /// What the service refuses of a grant the decoder read: a publication the catalog does not
    /// have, a source or issue id longer than ``PathIdentifier/maxBytes`` bytes.
    private static func problem(of grant: Grant, in root: JSONValue, catalog: Catalog) -> FormatError? {
        func invalid(_ key: String, _ index: Int?, _ id: String, expected: String) -> FormatError {
            let member = root[key]
            let element = index.flatMap { index in member.flatMap { Array($0.elements).dropFirst(index).first } }
            let path = index.map { JSONPath.element(JSONPath.member("$", key), $0) } ?? JSONPath.member("$", key)
            return .invalidValue(path: path, line: (element ?? member ?? root).line, value: quoted(id), expected: expected)
        }
        let longest = PathIdentifier.maxBytes
        if grant.source.utf8.count > longest { return invalid("source", nil, grant.source, expected: "at most \(longest) bytes") }
        let ofTheCatalog = "a publication of the catalog"
        switch grant.scope {
        case .span(let publications, _, _):
            for (index, id) in publications.enumerated() where catalog.publication(id) == nil {
                return invalid("publications", index, id, expected: ofTheCatalog)
            }
        case .issues(let publication, let issueIds):
            if catalog.publication(publication) == nil { return invalid("publication", nil, publication, expected: ofTheCatalog) }
            for (index, id) in issueIds.enumerated() where id.utf8.count > longest {
                return invalid("issues", index, id, expected: "an issue id of at most \(longest) bytes")
            }
        }
        return nil
    }

    /// A text as a JSON string, so that any character in it shows as an escape.
    private static func quoted(_ text: String) -> String {
        var writer = JSONWriter(capacity: text.utf8.count + 2)
        writer.string(text)
        return writer.text
    }

    /// A grant as answered, with `status`.
    private static func answer(_ grant: Grant, status: Int) -> HTTPResponse {
        var writer = JSONWriter(capacity: 512)
        write(grant, into: &writer)
        return .json(status, writer.bytes)
    }

    /// A grant with every field, as a PUT body may write it: `grantId`, `source`, then a span's
    /// `publications`, `access`, `window` (null: none), or an issue grant's `publication` and
    /// `issues`; `start`, a span's `end` (null: open-ended), `revokedAt` (null: not revoked).
    static func write(_ grant: Grant, into writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("grantId", grant.grantId)
        writer.field("source", grant.source)
        switch grant.scope {
        case .span(let publications, let access, let window):
            writeSpan(publications, access, into: &writer)
            writer.key("window")
            if let window { writer.int(Int64(window)) } else { writer.null() }
        case .issues(let publication, let issueIds):
            writer.field("publication", publication)
            writer.key("issues")
            writer.beginArray()
            for issueId in issueIds { writer.string(issueId) }
            writer.endArray()
        }
        writer.field("start", grant.start.description)
        if case .span = grant.scope { writer.field("end", grant.end?.description) }
        writer.field("revokedAt", grant.revokedAt?.description)
        writer.endObject()
    }

    /// `publications` and `access`, as a span grant, a licence and a gift code's offer give them.
    static func writeSpan(_ publications: [String], _ access: AccessStyle, into writer: inout JSONWriter) {
        writer.key("publications")
        writer.beginArray()
        for publication in publications { writer.string(publication) }
        writer.endArray()
        writer.field("access", access.rawValue)
    }
}
