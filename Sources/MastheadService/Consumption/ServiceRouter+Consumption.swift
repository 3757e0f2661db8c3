import Masthead
import MastheadHTTP
import MastheadJSON
import MastheadStorage

/// The reader's consent to sending Apple consumption information:
/// `GET` and `PUT /v1/users/{userId}/consumption-consent`.
extension ServiceRouter {
    /// The consumption consent routes, in the OpenAPI document's order.
    static let consumptionRoutes: [Route] = [
        Route(
            ["GET", "PUT"], "/v1/users/{userId}/consumption-consent", .apiToken, label: "consumption_consent",
            .deferred { router, request, ids, reply in
                guard request.method == "PUT" else {
                    do throws(AnyServiceFailure) { reply(try router.consumptionConsent(userId: ids[.user])) } catch { reply(error.failure.response) }
                    return
                }
                router.setConsumptionConsent(request, userId: ids[.user], reply: reply)
            }),
    ]

    /// `GET`: the consent as last recorded; `{"consented": false, "recorded": null}` when none was.
    func consumptionConsent(userId: String) throws(AnyServiceFailure) -> HTTPResponse {
        let consent: ConsumptionConsent?
        do { consent = try service.consumptionConsent(forUser: userId) } catch { throw AnyServiceFailure(ServiceError.storeUnavailable(error)) }
        return ServiceRouter.answer(consent, userId: userId)
    }

    /// `PUT` with `{"consented": true|false}` (no other member): records it with the instant,
    /// answered once committed.
    func setConsumptionConsent(_ request: HTTPRequest, userId: String, reply: @escaping @Sendable (HTTPResponse) -> Void) {
        let consented: Bool
        do { consented = try ServiceRouter.consent(request.body) } catch {
            reply(error.failure.response)
            return
        }
        service.setConsumptionConsent(userId: userId, consented: consented) { result in
            switch result {
            case .success(let consent): reply(ServiceRouter.answer(consent, userId: userId))
            case .failure(let error): reply(ServiceError.notStored("consumption consent", error).response)
            }
        }
    }

    /// The `consented` member of a consent body.
    static func consent(_ body: [UInt8]) throws(AnyServiceFailure) -> Bool {
        let root: JSONValue
        do { root = try JSONDocument(parsing: body).root } catch { throw AnyServiceFailure(ServiceError.invalidJSON(error)) }
        guard root.kind == .object else { throw AnyServiceFailure(ConsumptionError.invalidConsent("$: expected an object")) }
        for (key, _) in root.members where key.string != "consented" {
            throw AnyServiceFailure(ConsumptionError.invalidConsent("\(JSONPath.member("$", key.string)): unknown member"))
        }
        guard let member = root.member("consented") else { throw AnyServiceFailure(ConsumptionError.invalidConsent("$.consented: missing")) }
        guard let consented = member.bool else { throw AnyServiceFailure(ConsumptionError.invalidConsent("$.consented: expected true or false")) }
        return consented
    }

    /// `{"userId", "consented", "recorded"}`.
    private static func answer(_ consent: ConsumptionConsent?, userId: String) -> HTTPResponse {
        var writer = JSONWriter(capacity: 128)
        writer.beginObject()
        writer.field("userId", userId)
        writer.field("consented", consent?.consented ?? false)
        writer.field("recorded", consent?.recorded.description)
        writer.endObject()
        return .json(200, writer.bytes)
    }
}
