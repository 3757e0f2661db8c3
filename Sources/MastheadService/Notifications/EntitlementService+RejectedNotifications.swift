import MastheadStorage
import Synchronization

extension EntitlementService {
    /// Keeps the body of a refused notification, with the reason, through the group commit; it is
    /// never applied, and the store keeps only the newest of each kind
    /// (`SQLiteStore.rejectedNotificationRetention`). `completion` runs after the commit with its id.
    func recordRejectedNotification(
        kind: RejectedNotification.Kind, reason: String, body: [UInt8], completion: @escaping @Sendable (Result<Int64, any Error>) -> Void
    ) {
        let now = clock()
        write({ store in (try store.recordRejectedNotification(kind: kind, reason: reason, body: body, now: now), []) }, completion: completion)
    }

    /// The newest `limit` rejected notifications, newest first, with their bodies when `withBodies`.
    func rejectedNotifications(limit: Int, withBodies: Bool) throws -> [RejectedNotification] {
        try reader.withLock { reader in try reader.store.rejectedNotifications(limit: limit, withBodies: withBodies) }
    }
}
