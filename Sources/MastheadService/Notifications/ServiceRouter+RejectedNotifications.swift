import Foundation
import Masthead
import MastheadHTTP
import MastheadJSON
import MastheadStorage

/// `GET /v1/notifications/rejected`: the notifications refused for their signature, for forensics.
extension ServiceRouter {
    /// The most rejected notifications one answer lists, and how many when `limit` is not given.
    static let maxRejectedListed = 1000
    static let defaultRejectedListed = 100

    /// `GET /v1/notifications/rejected?limit=&bodies=`: the newest rejected notifications, newest
    /// first, their bodies (base64) only when `bodies=true`.
    func rejectedNotifications(_ request: HTTPRequest) throws(AnyServiceFailure) -> HTTPResponse {
        var limit = ServiceRouter.defaultRejectedListed
        if let text = request.queryValue("limit") {
            guard text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }), let value = Int(text),
                (1...ServiceRouter.maxRejectedListed).contains(value)
            else {
                throw AnyServiceFailure(NotificationError.invalidLimit(max: ServiceRouter.maxRejectedListed))
            }
            limit = value
        }
        var withBodies = false
        if let text = request.queryValue("bodies") {
            guard let value = Bool(text) else { throw AnyServiceFailure(NotificationError.invalidBodies) }
            withBodies = value
        }
        let rejected: [RejectedNotification]
        do { rejected = try service.rejectedNotifications(limit: limit, withBodies: withBodies) } catch { throw AnyServiceFailure(ServiceError.storeUnavailable(error)) }
        var writer = JSONWriter(capacity: 256 + rejected.reduce(0) { $0 + 160 + $1.reason.utf8.count + ($1.body?.count ?? 0) * 4 / 3 })
        writer.beginObject()
        writer.key("rejectedNotifications")
        writer.beginArray()
        for entry in rejected {
            writer.beginObject()
            writer.field("id", entry.id)
            writer.field("received", entry.received.description)
            writer.field("reason", entry.reason)
            writer.field("kind", entry.kind.rawValue)
            writer.field("bodyBytes", Int64(entry.bodyBytes))
            if let body = entry.body { writer.field("bodyBase64", Data(body).base64EncodedString()) }
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return .json(200, writer.bytes)
    }
}
