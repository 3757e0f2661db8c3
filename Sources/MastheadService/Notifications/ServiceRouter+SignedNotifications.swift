import Masthead
import MastheadCrypto
import MastheadFormats
import MastheadHTTP
import MastheadStorage

/// Version 2 notifications on `POST /v1/notifications/app-store`: verified, or refused and kept
/// in the rejected notifications.
extension ServiceRouter {
    /// A version 2 notification: verified (chain, signature, app; then the signed transaction and
    /// renewal info it carries), then stored, applied and forwarded, answered once committed. A refused one is
    /// answered 401 with the reason and kept in the rejected notifications, never applied; while
    /// no `appStoreBundleId` is configured, every one is refused (503, so that Apple sends it again).
    func postSignedNotification(_ signedPayload: String, body: [UInt8], contentType: String?, reply: @escaping @Sendable (HTTPResponse) -> Void) {
        guard let verifier = service.signedDataVerifier else {
            let kind: RejectedNotification.Kind = ServiceRouter.hasCompactJWSShape(signedPayload) ? .signed : .malformed
            return refuseNotification(ServiceError.signedDataNotConfigured, kind: kind, body: body, reply: reply)
        }
        let notification: SignedNotification
        do { notification = try verifier.notification(signedPayload, path: "$.signedPayload") } catch {
            return refuseNotification(NotificationError.notificationRefused(error), kind: ServiceRouter.rejectionKind(error), body: body, reply: reply)
        }
        service.postSignedNotification(notification, body: body, contentType: contentType, completion: notificationAnswer(decodeError: nil, reply: reply))
    }

    /// What a refusal of a version 2 notification's `signedPayload` keeps it as: malformed when
    /// the token itself is not a well-formed ES256 JWS with a decodable chain, else signed data
    /// (refused for its chain, signature, app or content: the evidence of a forgery).
    static func rejectionKind(_ error: FormatError) -> RejectedNotification.Kind {
        guard case .signatureRefused(let path, let reason) = error, path == "$.signedPayload" else { return .signed }
        switch reason {
        case .malformedToken, .unsupportedAlgorithm, .wrongChainLength, .undecodableCertificate, .invalidBase64, .invalidCertificate: return .malformed
        default: return .signed
        }
    }

    /// Whether `token` has the shape of a compact JWS (three non-empty base64url parts), judged
    /// without a verifier: how a refusal is kept while signed data is not configured.
    static func hasCompactJWSShape(_ token: String) -> Bool {
        let parts = token.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        return parts.count == 3
            && parts.allSatisfy { part in
                !part.isEmpty
                    && part.allSatisfy { byte in
                        switch byte {
                        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                            UInt8(ascii: "-"), UInt8(ascii: "_"):
                            true
                        default: false
                        }
                    }
            }
    }

    /// Keeps a refused notification's body with the reason (the error's message, cut to
    /// ``RejectedNotification/maxReasonBytes``), then answers the error.
    func refuseNotification(
        _ error: any ServiceFailure, kind: RejectedNotification.Kind, body: [UInt8], reply: @escaping @Sendable (HTTPResponse) -> Void
    ) {
        service.recordRejectedNotification(kind: kind, reason: error.message, body: body) { _ in
            // Answered the refusal whether or not it could be kept: it is not applied either way.
            reply(error.response)
        }
    }
}
