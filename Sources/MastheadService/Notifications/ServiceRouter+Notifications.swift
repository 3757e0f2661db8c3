import Masthead
import MastheadFormats
import MastheadHTTP
import MastheadJSON
import MastheadStorage

/// `POST /v1/notifications/app-store`: version 1 notifications (checked with the shared secret) and
/// version 2 ones (signed, see ``postSignedNotification(_:body:contentType:reply:)``).
extension ServiceRouter {
    /// The notification routes, in the OpenAPI document's order.
    static let notificationRoutes: [Route] = [
        Route(
            ["POST"], "/v1/notifications/app-store", .sharedSecretInBody, label: "notifications",
            .deferred { router, request, _, reply in router.postNotification(request, reply: reply) }),
        Route(
            ["GET"], "/v1/notifications/rejected", .adminToken, label: "rejected_notifications",
            .immediate { router, request, _ throws(AnyServiceFailure) in try router.rejectedNotifications(request) }),
    ]

    /// A notification: version 2 told apart by its shape, version 1 checked with the shared
    /// secret, stored (and applied when it can be read), forwarded, and answered once committed.
    func postNotification(_ request: HTTPRequest, reply: @escaping @Sendable (HTTPResponse) -> Void) {
        let document: JSONDocument
        do { document = try JSONDocument(parsing: request.body) } catch {
            return reply(ServiceError.invalidJSON(error).response)
        }
        // Version 2 (`{"signedPayload": …}`) is told apart by its shape, and verified instead of a password.
        let signed: SignedDataDocument?
        do { signed = try SignedDataDocument.read(document.root) } catch {
            return refuseNotification(NotificationError.notificationRefused(error), kind: .malformed, body: request.body, reply: reply)
        }
        if case .notification(let signedPayload)? = signed {
            return postSignedNotification(signedPayload, body: request.body, contentType: request.header("Content-Type"), reply: reply)
        }
        let password = document.root.member("password")?.string ?? ""
        guard ServiceRouter.constantTimeEqual(password, service.configuration.sharedSecret) else {
            return reply(NotificationError.wrongSharedSecret.response)
        }
        let type = document.root.member("notification_type")?.string ?? "UNKNOWN"
        // A notification that cannot be read is still kept (raw body) and acknowledged: Apple's
        // retries would carry the same body. The answer says it was not applied.
        var decodeError: FormatError?
        let notification: AppStoreNotification?
        do { notification = try NotificationDecoder(catalog: service.catalog).decode(document.root) } catch {
            decodeError = error
            notification = nil
        }
        service.postNotification(notification, type: type, subtype: nil, uuid: nil, body: request.body, contentType: request.header("Content-Type"),
            completion: notificationAnswer(decodeError: decodeError, reply: reply))
    }

    /// The answer to a notification once committed: `{"stored": true, "applied": …}`, with the
    /// reason when it could not be read, or `{"stored": false, "applied": false, "duplicate": true}`
    /// for a second delivery, which stores nothing.
    func notificationAnswer(
        decodeError: FormatError?, reply: @escaping @Sendable (HTTPResponse) -> Void
    ) -> @Sendable (Result<EntitlementService.NotificationOutcome, any Error>) -> Void {
        { result in
            switch result {
            case .success(let outcome):
                var writer = JSONWriter(capacity: 128)
                writer.beginObject()
                writer.field("stored", outcome == .stored)
                switch outcome {
                case .stored:
                    writer.field("applied", decodeError == nil)
                    if let decodeError { writer.field("error", decodeError.description) }
                case .alreadyStored:
                    writer.field("applied", false)
                    writer.field("duplicate", true)
                }
                writer.endObject()
                reply(.json(200, writer.bytes))
            case .failure(let error):
                reply(ServiceError.notStored("notification", error).response)
            }
        }
    }
}
