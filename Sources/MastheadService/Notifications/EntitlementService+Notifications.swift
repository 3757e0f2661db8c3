import Masthead
import MastheadFormats
import MastheadStorage

/// Version 1 notifications stored and applied, and the write every notification goes through.
extension EntitlementService {
    /// What posting a notification came to.
    package enum NotificationOutcome: Sendable {
        /// Stored (and applied, when it could be read).
        case stored
        /// A notification with its `notificationUUID` was stored before: neither stored nor applied again.
        case alreadyStored
    }

    /// Stores a notification's raw body (with its V2 `subtype` and `notificationUUID`, when it has
    /// them; it is not recorded as signed, which only ``postSignedNotification(_:body:contentType:completion:)``
    /// does) and everything it carries; `completion` runs after the commit. A notification whose
    /// uuid is stored already is neither stored nor applied again. Transactions of subscriptions no
    /// user has yet are kept and count once a receipt links them. A stored notification is
    /// forwarded, in the same transaction, to each `forwardNotificationsTo` target (`body` with
    /// `contentType`; see ``NotificationForwarding``).
    func postNotification(
        _ notification: AppStoreNotification?, type: String, subtype: String?, uuid: String?, body: [UInt8], contentType: String?,
        completion: @escaping @Sendable (Result<NotificationOutcome, any Error>) -> Void
    ) {
        let now = clock()
        let text = String(decoding: body, as: UTF8.self)
        let forwards = NotificationForwarding.messages(to: configuration.forwardNotificationsTo, body: body, contentType: contentType)
        submitNotification(type: type, completion: completion) { store in
            _ = try store.recordNotification(
                type: type, subtype: subtype, uuid: uuid, environment: notification?.environment,
                originalTransactionIds: notification?.originalTransactionIds ?? [], body: text, signed: false, received: now)
            if !forwards.isEmpty { try store.enqueueOutbound(forwards, now: now) }
            guard let notification else { return [] }
            try store.save(transactions: notification.transactions, renewals: notification.renewals)
            if let latest = notification.latestReceipt, !notification.originalTransactionIds.isEmpty {
                try store.recordLatestReceipt(latest, environment: notification.environment, originalTransactionIds: notification.originalTransactionIds)
            }
            return try store.users(linkedTo: notification.originalTransactionIds, environment: notification.environment).map(Change.user)
        }
    }

    /// Queues a notification's write; `completion` runs after the commit, with `.alreadyStored`
    /// when the store found its `notificationUUID` stored before.
    func submitNotification(
        type: String, completion: @escaping @Sendable (Result<NotificationOutcome, any Error>) -> Void,
        _ job: @escaping @Sendable (any EntitlementStore) throws -> [Change]
    ) {
        writer.submit(job) { [self] result in
            switch result {
            case .success(let changes):
                noteWrite(nil)
                metrics.recordNotification(type: type)
                invalidate(changes)
                completion(.success(.stored))
            case .failure(StorageError.notificationAlreadyRecorded):
                completion(.success(.alreadyStored))
            case .failure(let error):
                noteWrite(error)
                completion(.failure(error))
            }
        }
    }
}
