import Dispatch
public import MastheadAppStore
import MastheadFormats
import MastheadJSON
import Synchronization

/// Filling gaps after an outage: the notifications Apple's Get Notification History gives,
/// applied as received ones.
extension EntitlementService {
    /// What applying a notification history did.
    public struct NotificationHistoryReport: Sendable {
        /// Notifications stored and applied now.
        public var applied = 0
        /// Notifications whose `notificationUUID` was stored already (received, or applied by an
        /// earlier run): neither stored nor applied again.
        public var alreadyReceived = 0
        /// Notifications that could not be stored: their `notificationUUID` and why.
        public var failures: [(uuid: String, reason: String)] = []

        /// `12 notifications: 3 applied, 9 already received, 0 failed`.
        public var summary: String {
            let count = applied + alreadyReceived + failures.count
            return "\(count) notification\(count == 1 ? "" : "s"): \(applied) applied, \(alreadyReceived) already received, \(failures.count) failed"
        }
    }

    /// Applies verified notifications of Get Notification History exactly as the same
    /// notifications posted to `POST /v1/notifications/app-store` are (their body is
    /// `{"signedPayload": …}` as Apple sends it): stored once per `notificationUUID`, so ones
    /// received before are skipped, and the ones stored now forwarded (as `application/json`) to
    /// the `forwardNotificationsTo` targets, which missed them too. Returns once every one is
    /// committed or refused.
    public func applyNotificationHistory(_ entries: [NotificationHistoryEntry]) -> NotificationHistoryReport {
        let report = Mutex(NotificationHistoryReport())
        let committed = DispatchGroup()
        for entry in entries {
            committed.enter()
            var body = JSONWriter(capacity: entry.signedPayload.utf8.count + 20)
            body.beginObject()
            body.field("signedPayload", entry.signedPayload)
            body.endObject()
            postSignedNotification(entry.notification, body: body.bytes, contentType: NotificationForwarding.defaultContentType) { result in
                report.withLock { report in
                    switch result {
                    case .success(.stored): report.applied += 1
                    case .success(.alreadyStored): report.alreadyReceived += 1
                    case .failure(let error): report.failures.append((entry.notification.payload.notificationUUID ?? "(no uuid)", "\(error)"))
                    }
                }
                committed.leave()
            }
        }
        committed.wait()
        return report.withLock { $0 }
    }
}
