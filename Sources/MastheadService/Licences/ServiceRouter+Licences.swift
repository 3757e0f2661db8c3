import Masthead
import MastheadHTTP
import MastheadJSON
import MastheadStorage

/// The licence routes, all with the admin token: `GET` and `PUT /v1/licences/{licenceId}`,
/// `GET /v1/licences/{licenceId}/members`, and `PUT` and `DELETE
/// /v1/licences/{licenceId}/members/{userId}`.
extension ServiceRouter {
    /// The most users one page of members lists, and how many when `limit` is not given.
    static let maxMembersListed = 1000
    static let defaultMembersListed = 100

    /// The licence routes, in the OpenAPI document's order.
    static let licenceRoutes: [Route] = [
        Route(
            ["GET", "PUT"], "/v1/licences/{licenceId}", .adminToken, label: "licence",
            .deferred { router, request, ids, reply in
                guard request.method == "PUT" else {
                    do throws(AnyServiceFailure) { reply(try router.licence(ids[.licence])) } catch { reply(error.failure.response) }
                    return
                }
                router.putLicence(request, licenceId: ids[.licence], reply: reply)
            }),
        Route(
            ["GET"], "/v1/licences/{licenceId}/members", .adminToken, label: "licence_members",
            .immediate { router, request, ids throws(AnyServiceFailure) in try router.licenceMembers(request, licenceId: ids[.licence]) }),
        Route(
            ["PUT", "DELETE"], "/v1/licences/{licenceId}/members/{userId}", .adminToken, label: "licence_member",
            .deferred { router, request, ids, reply in
                router.changeMembership(request, licenceId: ids[.licence], userId: ids[.user], reply: reply)
            }),
    ]

    /// `GET /v1/licences/{licenceId}`: the licence and its current member count.
    func licence(_ licenceId: String) throws(AnyServiceFailure) -> HTTPResponse {
        let found: (licence: Licence, members: Int)?
        do { found = try service.licence(licenceId) } catch { throw AnyServiceFailure(ServiceError.storeUnavailable(error)) }
        guard let found else { throw AnyServiceFailure(LicenceError.unknown(licenceId)) }
        return .json(200, ServiceRouter.licenceJSON(found.licence, members: found.members))
    }

    /// `PUT /v1/licences/{licenceId}`: creates or replaces the licence, answered once committed.
    func putLicence(_ request: HTTPRequest, licenceId: String, reply: @escaping @Sendable (HTTPResponse) -> Void) {
        let licence: Licence
        do { licence = try licenceBody(request.body, licenceId: licenceId) } catch { return reply(error.failure.response) }
        service.putLicence(licence) { result in
            switch result {
            case .success(let stored): reply(.json(200, ServiceRouter.licenceJSON(stored.licence, members: stored.members)))
            case .failure(let error): reply(ServiceError.notStored("licence", error).response)
            }
        }
    }

    /// `GET /v1/licences/{licenceId}/members?after=&limit=`: memberships, current and past, by
    /// user id; `limit` users at most (100 when not given, up to 1000), after the user id `after`.
    func licenceMembers(_ request: HTTPRequest, licenceId: String) throws(AnyServiceFailure) -> HTTPResponse {
        var limit = ServiceRouter.defaultMembersListed
        if let text = request.queryValue("limit") {
            guard text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }), let value = Int(text),
                (1...ServiceRouter.maxMembersListed).contains(value)
            else {
                throw AnyServiceFailure(LicenceError.invalidQuery("limit must be a whole number from 1 to \(ServiceRouter.maxMembersListed)"))
            }
            limit = value
        }
        let page: (licence: Licence, memberships: [LicenceMembership])?
        do { page = try service.licenceMemberships(licenceId, after: request.queryValue("after"), limit: limit) } catch {
            throw AnyServiceFailure(ServiceError.storeUnavailable(error))
        }
        guard let page else { throw AnyServiceFailure(LicenceError.unknown(licenceId)) }
        var writer = JSONWriter(capacity: 128 + 160 * page.memberships.count)
        writer.beginObject()
        writer.field("licenceId", licenceId)
        writer.key("members")
        writer.beginArray()
        for membership in page.memberships { ServiceRouter.write(membership, of: page.licence, into: &writer) }
        writer.endArray()
        writer.endObject()
        return .json(200, writer.bytes)
    }

    /// `PUT` joins the user now (a member already: their membership unchanged), `DELETE` ends
    /// their membership now; both answer the membership once committed.
    func changeMembership(_ request: HTTPRequest, licenceId: String, userId: String, reply: @escaping @Sendable (HTTPResponse) -> Void) {
        let service = self.service
        if request.method == "DELETE" {
            service.leaveLicence(licenceId, userId: userId) { result in
                switch result {
                case .success(let membership?): reply(ServiceRouter.membershipAnswer(membership, service: service))
                case .success(nil): reply(ServiceRouter.notMember(licenceId, userId: userId, service: service).response)
                case .failure(let error): reply(ServiceError.notStored("licence membership", error).response)
                }
            }
            return
        }
        service.joinLicence(licenceId, userId: userId) { result in
            switch result {
            case .success(.joined(let membership)), .success(.alreadyMember(let membership)):
                reply(ServiceRouter.membershipAnswer(membership, service: service))
            case .success(.full(let seats)): reply(LicenceError.full(licenceId: licenceId, seats: seats).response)
            case .success(.ended(let end)): reply(LicenceError.ended(licenceId: licenceId, end: end.description).response)
            case .success(.unknownLicence): reply(LicenceError.unknown(licenceId).response)
            case .failure(let error): reply(ServiceError.notStored("licence membership", error).response)
            }
        }
    }

    /// 404 for a DELETE of someone who never was a member: `unknown_licence` when the licence is unknown.
    private static func notMember(_ licenceId: String, userId: String, service: EntitlementService) -> LicenceError {
        (try? service.licence(licenceId)) == nil ? .unknown(licenceId) : .notMember(licenceId: licenceId, userId: userId)
    }

    /// A membership with its grant, read with the licence after the commit.
    private static func membershipAnswer(_ membership: LicenceMembership, service: EntitlementService) -> HTTPResponse {
        let licence: Licence?
        do { licence = try service.licence(membership.licenceId)?.licence } catch { return ServiceError.storeUnavailable(error).response }
        guard let licence else { return LicenceError.unknown(membership.licenceId).response }
        var writer = JSONWriter(capacity: 256)
        write(membership, of: licence, into: &writer)
        return .json(200, writer.bytes)
    }

    /// The licence a PUT body gives: `{"publications", "access", "start", "end", "seats"}`, `end`
    /// optional (null or absent: open-ended; a date alone includes that day) and after `start`,
    /// `seats` at least 1.
    private func licenceBody(_ body: [UInt8], licenceId: String) throws(AnyServiceFailure) -> Licence {
        let root = try ServiceRouter.object(body, members: ["publications", "access", "start", "end", "seats"], LicenceError.invalidLicence)
        let publications = try publicationList(root, LicenceError.invalidLicence)
        let access = try ServiceRouter.accessStyle(root, LicenceError.invalidLicence)
        let start = try ServiceRouter.instant(root, "start", LicenceError.invalidLicence)
        var end: Instant?
        if let member = root.member("end"), !member.isNull {
            // A date alone includes that day, as a grant's end does.
            end = try ServiceRouter.instant(root, "end", dateMeansEndOfDay: true, LicenceError.invalidLicence)
            if let end, end <= start { throw AnyServiceFailure(LicenceError.invalidLicence("$.end: must be after start")) }
        }
        let maxSeats = EntitlementService.maxLicenceSeats
        guard let seats = root.member("seats")?.int64, seats >= 1, seats <= Int64(maxSeats) else {
            throw AnyServiceFailure(LicenceError.invalidLicence("$.seats: expected a whole number from 1 to \(maxSeats)"))
        }
        return Licence(licenceId: licenceId, publications: publications, access: access, start: start, end: end, seats: Int(seats))
    }

    /// `{"licenceId", "publications", "access", "start", "end", "seats", "members"}`.
    private static func licenceJSON(_ licence: Licence, members: Int) -> [UInt8] {
        var writer = JSONWriter(capacity: 256)
        writer.beginObject()
        writer.field("licenceId", licence.licenceId)
        writeSpan(licence.publications, licence.access, into: &writer)
        writer.field("start", licence.start.description)
        writer.field("end", licence.end?.description)
        writer.field("seats", Int64(licence.seats))
        writer.field("members", Int64(members))
        writer.endObject()
        return writer.bytes
    }

    /// `{"licenceId", "userId", "number", "joined", "left", "grantId"}`: `grantId` names the
    /// grant the membership gives (null when its span is empty).
    private static func write(_ membership: LicenceMembership, of licence: Licence, into writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("licenceId", membership.licenceId)
        writer.field("userId", membership.userId)
        writer.field("number", Int64(membership.number))
        writer.field("joined", membership.joined.description)
        writer.field("left", membership.left?.description)
        writer.field("grantId", membership.grant(of: licence)?.grantId)
        writer.endObject()
    }
}
