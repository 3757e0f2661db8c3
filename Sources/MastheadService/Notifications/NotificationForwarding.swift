import Foundation
import MastheadStorage

/// Apple's notifications passed on to the `forwardNotificationsTo` targets (a staging service,
/// say) through the outbox, delivered and retried as webhook events are.
///
/// A notification is forwarded exactly when it is stored: its messages are written in the
/// transaction that stores it, so a notification refused (wrong shared secret, a signature or app
/// that fails verification) is never forwarded, and a second delivery of a version 2 notification
/// whose `notificationUUID` is stored already is not forwarded again. Version 1 notifications have
/// no uuid: each delivery is stored, and forwarded, again.
enum NotificationForwarding {
    /// The `Content-Type` a forward carries when the notification came without one.
    static let defaultContentType = "application/json"

    /// One message per target: the body's exact bytes with the content type it was received with,
    /// and one new idempotency id (lower-case UUID) shared by every target's copy. No ordering key:
    /// Apple promises no order among its notifications, so a receiver must take them in any order,
    /// and a target that fails holds back none of the others.
    static func messages(to targets: [String], body: [UInt8], contentType: String?) -> [OutboundMessage] {
        guard !targets.isEmpty else { return [] }
        let id = UUID().uuidString.lowercased()
        let type = contentType.flatMap { $0.isEmpty ? nil : $0 } ?? defaultContentType
        return targets.map { target in
            OutboundMessage(kind: .forward, target: target, orderingKey: nil, eventId: id, contentType: type, body: body)
        }
    }
}
