import Masthead
import MastheadFormats
import MastheadStorage
import Synchronization

extension EntitlementService {
    /// Stores a verified version 2 notification — its raw body with its type, subtype and
    /// `notificationUUID` — and applies the transaction and renewal info it carries (merged under
    /// R2.8 and R2.7); `completion` runs after the commit. A notification whose uuid is stored
    /// already is neither stored nor applied again. A stored notification is forwarded, in the
    /// same transaction, to each `forwardNotificationsTo` target (`body` with `contentType`; see
    /// ``NotificationForwarding``).
    ///
    /// The transaction's subscription goes to the user it is linked to; else to the owner of the
    /// transaction's `appAccountToken`, linked now; else it stays unlinked, counting for a user
    /// once a receipt or signed transactions posted for the user, or the token linked to the user,
    /// link it.
    func postSignedNotification(
        _ notification: SignedNotification, body: [UInt8], contentType: String?, completion: @escaping @Sendable (Result<NotificationOutcome, any Error>) -> Void
    ) {
        let now = clock()
        let text = String(decoding: body, as: UTF8.self)
        let payload = notification.payload
        let type = payload.notificationType?.rawValue ?? "UNKNOWN"
        let transaction = notification.transaction
        let renewal = notification.renewal?.renewal
        let environment = transaction?.transaction.environment ?? renewal?.environment
        var subscriptions: [(environment: Environment, originalTransactionId: String, appAccountToken: String?)] = []
        if let transaction {
            subscriptions.append((transaction.transaction.environment, transaction.transaction.originalTransactionId, transaction.payload.appAccountToken))
        }
        if let renewal, let original = renewal.originalTransactionId,
            !subscriptions.contains(where: { $0.environment == renewal.environment && $0.originalTransactionId.sameBytes(as: original) })
        {
            subscriptions.append((renewal.environment, original, nil))
        }
        let consumptionEnabled = consumption.enabled
        let forwards = NotificationForwarding.messages(to: configuration.forwardNotificationsTo, body: body, contentType: contentType)
        let consumptionQueued = Mutex(false)
        submitNotification(type: type, completion: { [self] result in
            if case .success(.stored) = result { noteConsumptionRequest(notification, queued: consumptionQueued.withLock { $0 }) }
            completion(result)
        }) { [subscriptions] store in
            _ = try store.recordNotification(
                type: type, subtype: payload.subtype?.rawValue, uuid: payload.notificationUUID, environment: environment,
                originalTransactionIds: subscriptions.map(\.originalTransactionId), body: text, signed: true, received: now)
            if !forwards.isEmpty { try store.enqueueOutbound(forwards, now: now) }
            try store.save(transactions: transaction?.transactions ?? [], renewals: renewal.map { [$0] } ?? [])
            var users: Set<ExactKey> = []
            for subscription in subscriptions {
                let user = try store.linkSubscription(
                    environment: subscription.environment, originalTransactionId: subscription.originalTransactionId,
                    appAccountToken: subscription.appAccountToken, now: now)
                if let user { users.insert(ExactKey(user)) }
            }
            let queued = try EntitlementService.queueConsumptionRequest(notification, users: users, enabled: consumptionEnabled, now: now, store: store)
            consumptionQueued.withLock { $0 = queued }
            return users.sorted().map { Change.user($0.text) }
        }
    }
}
