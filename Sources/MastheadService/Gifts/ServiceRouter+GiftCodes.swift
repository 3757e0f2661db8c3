import Masthead
import MastheadFormats
import MastheadHTTP
import MastheadJSON
import MastheadStorage

/// The gift code routes: `POST /v1/gift-codes` (the admin token) makes a batch of codes, and
/// `POST /v1/users/{userId}/gift-codes/redeem` (the API token, as the publisher's app backend
/// posts receipts) redeems one for a reader.
extension ServiceRouter {
    /// The gift code routes, in the OpenAPI document's order.
    static let giftCodeRoutes: [Route] = [
        Route(
            ["POST"], "/v1/gift-codes", .adminToken, label: "gift_codes",
            .deferred { router, request, _, reply in router.createGiftCodes(request, reply: reply) }),
        Route(
            ["POST"], "/v1/users/{userId}/gift-codes/redeem", .apiToken, label: "gift_code_redeem",
            .deferred { router, request, ids, reply in router.redeemGiftCode(request, userId: ids[.user], reply: reply) }),
    ]

    /// `POST /v1/gift-codes`: makes the codes and answers them, once: the store keeps only their hashes.
    func createGiftCodes(_ request: HTTPRequest, reply: @escaping @Sendable (HTTPResponse) -> Void) {
        let batch: (count: Int, offer: GiftOffer)
        do { batch = try giftCodeBatch(request.body) } catch { return reply(error.failure.response) }
        service.createGiftCodes(count: batch.count, offer: batch.offer) { result in
            switch result {
            case .success(let codes):
                var writer = JSONWriter(capacity: 256 + 48 * codes.count)
                writer.beginObject()
                ServiceRouter.writeOffer(batch.offer, into: &writer)
                writer.key("codes")
                writer.beginArray()
                for (id, code) in codes {
                    writer.beginObject()
                    writer.field("id", id)
                    writer.field("grantId", Grant.giftCodePrefix + String(id))
                    writer.field("code", code.grouped)
                    writer.endObject()
                }
                writer.endArray()
                writer.endObject()
                reply(.json(200, writer.bytes))
            case .failure(let error): reply(ServiceError.notStored("gift codes", error).response)
            }
        }
    }

    /// `POST /v1/users/{userId}/gift-codes/redeem` with `{"code": "…"}`: counted against the
    /// user's attempts first, then redeemed once committed.
    func redeemGiftCode(_ request: HTTPRequest, userId: String, reply: @escaping @Sendable (HTTPResponse) -> Void) {
        if let wait = service.admitRedemption(userId: userId) { return reply(GiftCodeError.tooManyAttempts(retryAfter: wait).response) }
        let typed: String
        do { typed = try ServiceRouter.typedCode(request.body) } catch { return reply(error.failure.response) }
        // A malformed code is answered as an unknown one: what was typed is never told apart.
        guard let code = GiftCode(typed: typed) else { return reply(GiftCodeError.unknown.response) }
        service.redeemGiftCode(code, userId: userId) { result in
            switch result {
            case .success(.redeemed(let grant)): reply(.json(200, ServiceRouter.grantJSON(grant, userId: userId)))
            case .success(.unknown): reply(GiftCodeError.unknown.response)
            case .success(.expired(let redeemBy)): reply(GiftCodeError.expired(redeemBy: redeemBy.description).response)
            case .success(.alreadyRedeemed): reply(GiftCodeError.redeemed.response)
            case .failure(let error): reply(ServiceError.notStored("redemption", error).response)
            }
        }
    }

    /// The batch a body asks for: `{"count", "publications", "access", "duration", "redeemBy"}`,
    /// every member required and no other, the publications in the catalog, `redeemBy` ahead.
    private func giftCodeBatch(_ body: [UInt8]) throws(AnyServiceFailure) -> (count: Int, offer: GiftOffer) {
        let root = try ServiceRouter.object(body, members: ["count", "publications", "access", "duration", "redeemBy"], GiftCodeError.invalidBatch)
        let maxCount = EntitlementService.maxGiftCodesPerBatch
        guard let count = root.member("count")?.int64, count >= 1, count <= Int64(maxCount) else {
            throw AnyServiceFailure(GiftCodeError.invalidBatch("$.count: expected a whole number from 1 to \(maxCount)"))
        }
        let publications = try publicationList(root, GiftCodeError.invalidBatch)
        let access = try ServiceRouter.accessStyle(root, GiftCodeError.invalidBatch)
        guard let text = root.member("duration")?.string, let duration = CalendarDuration(iso8601: text) else {
            throw AnyServiceFailure(GiftCodeError.invalidBatch("$.duration: expected an ISO 8601 duration such as P1Y, P6M or P30D"))
        }
        // A date alone is the last day a code may be redeemed.
        let redeemBy = try ServiceRouter.instant(root, "redeemBy", dateMeansEndOfDay: true, GiftCodeError.invalidBatch)
        guard redeemBy > service.clock() else { throw AnyServiceFailure(GiftCodeError.invalidBatch("$.redeemBy: is not in the future")) }
        return (Int(count), GiftOffer(publications: publications, access: access, duration: duration, redeemBy: redeemBy))
    }

    /// The `code` member of a redemption body.
    private static func typedCode(_ body: [UInt8]) throws(AnyServiceFailure) -> String {
        let root = try object(body, members: ["code"], GiftCodeError.invalidRedemption)
        guard let code = root.member("code")?.string else { throw AnyServiceFailure(GiftCodeError.invalidRedemption("$.code: expected a string")) }
        return code
    }

    private static func writeOffer(_ offer: GiftOffer, into writer: inout JSONWriter) {
        writeSpan(offer.publications, offer.access, into: &writer)
        writer.field("duration", offer.duration.description)
        writer.field("redeemBy", offer.redeemBy.description)
    }

    /// A span grant: `{"userId", "grantId", "source", "publications", "access", "start", "end"}`.
    static func grantJSON(_ grant: Grant, userId: String) -> [UInt8] {
        var writer = JSONWriter(capacity: 256)
        writer.beginObject()
        writer.field("userId", userId)
        writer.field("grantId", grant.grantId)
        writer.field("source", grant.source)
        if case .span(let publications, let access, _) = grant.scope { writeSpan(publications, access, into: &writer) }
        writer.field("start", grant.start.description)
        writer.field("end", grant.end?.description)
        writer.endObject()
        return writer.bytes
    }
}

/// Reading the bodies of the gift code and licence routes.
extension ServiceRouter {
    /// The body as a JSON object with no member other than `members`; `invalid` makes the error.
    static func object(_ body: [UInt8], members: Set<String>, _ invalid: (String) -> any ServiceFailure) throws(AnyServiceFailure) -> JSONValue {
        let root: JSONValue
        do { root = try JSONDocument(parsing: body).root } catch { throw AnyServiceFailure(ServiceError.invalidJSON(error)) }
        guard root.kind == .object else { throw AnyServiceFailure(invalid("$: expected an object")) }
        for (key, _) in root.members where !members.contains(key.string) {
            throw AnyServiceFailure(invalid("\(JSONPath.member("$", key.string)): unknown member"))
        }
        return root
    }

    /// `publications`: a non-empty array of the catalog's publication ids, each once.
    func publicationList(_ root: JSONValue, _ invalid: (String) -> any ServiceFailure) throws(AnyServiceFailure) -> [String] {
        guard let list = root.member("publications"), list.kind == .array, list.count > 0 else {
            throw AnyServiceFailure(invalid("$.publications: expected a non-empty array of publication ids"))
        }
        let catalog = service.catalog
        var publications: [String] = []
        var seen: Set<ExactKey> = []
        for (index, element) in list.elements.enumerated() {
            let path = JSONPath.element("$.publications", index)
            guard let id = element.string else { throw AnyServiceFailure(invalid("\(path): expected a publication id")) }
            guard catalog.publication(id) != nil else { throw AnyServiceFailure(invalid("\(path): the catalog has no publication \(id)")) }
            guard seen.insert(ExactKey(id)).inserted else { throw AnyServiceFailure(invalid("\(path): repeats \(id)")) }
            publications.append(id)
        }
        return publications
    }

    /// `access`: `archive` or `streaming`.
    static func accessStyle(_ root: JSONValue, _ invalid: (String) -> any ServiceFailure) throws(AnyServiceFailure) -> AccessStyle {
        guard let access = root.member("access")?.string.flatMap(AccessStyle.init(rawValue:)) else {
            throw AnyServiceFailure(invalid("$.access: expected \"archive\" or \"streaming\""))
        }
        return access
    }

    /// The member `name` as an instant, as a grant writes one: RFC 3339, or a date alone, midnight
    /// UTC of that day or, when `dateMeansEndOfDay` (an exclusive end, a deadline), of the next.
    static func instant(
        _ root: JSONValue, _ name: String, dateMeansEndOfDay: Bool = false, _ invalid: (String) -> any ServiceFailure
    ) throws(AnyServiceFailure) -> Instant {
        guard let instant = root[name]?.string.flatMap({ GrantDecoder.instant($0, dateMeansEndOfDay: dateMeansEndOfDay) }) else {
            throw AnyServiceFailure(invalid("$.\(name): expected an RFC 3339 instant or a date (YYYY-MM-DD)"))
        }
        return instant
    }
}
