import Masthead
import MastheadStorage
import Synchronization

/// What support tools read: the users a text names, and everything stored as a user's evidence.
/// Read from the database, so they include what other processes committed.
extension EntitlementService {
    /// Everything stored about a user that their answers are computed from, for support tools.
    struct Evidence: Sendable {
        var subscriptions: [LinkedSubscription]
        /// The transactions of the subscriptions linked to the user, in ``evidenceOrder(_:_:)``.
        var transactions: [Transaction]
        /// The renewal infos of the subscriptions linked to the user, by subscription, in the order stored.
        var renewals: [RenewalInfo]
        /// The newest notifications naming one of the user's subscriptions, newest first.
        var notifications: [StoredNotification]
        var grants: [Grant]
        var appAccountTokens: [AppAccountToken]
    }

    /// The most notifications a user's evidence lists.
    static let evidenceNotificationLimit = 200

    /// Whether `lhs` comes before `rhs` in a user's evidence: by environment, original transaction
    /// id (its bytes), purchase, then transaction id (its bytes).
    static func evidenceOrder(_ lhs: Transaction, _ rhs: Transaction) -> Bool {
        if lhs.environment != rhs.environment { return lhs.environment.rawValue < rhs.environment.rawValue }
        if !lhs.originalTransactionId.sameBytes(as: rhs.originalTransactionId) {
            return lhs.originalTransactionId.precedesInBytes(rhs.originalTransactionId)
        }
        if lhs.purchase != rhs.purchase { return lhs.purchase < rhs.purchase }
        return lhs.transactionId.precedesInBytes(rhs.transactionId)
    }

    /// Every user `text` names exactly, sorted (``StoreReader/lookup(_:)``).
    func lookup(_ text: String) throws -> [LookupMatch] {
        try reader.withLock { reader throws -> [LookupMatch] in
            let store = reader.store
            return try store.readSnapshot { () throws -> [LookupMatch] in try store.lookup(text) }
        }
    }

    /// A user's evidence, read in one snapshot, or nil for a user never seen and holding no grant.
    func evidence(forUser userId: String) throws -> Evidence? {
        try readKnownUser(userId) { store in
            let history = try store.history(forUser: userId)
            return Evidence(
                subscriptions: try store.subscriptions(forUser: userId),
                transactions: history.transactions.sorted(by: EntitlementService.evidenceOrder), renewals: history.renewals,
                notifications: try store.notifications(forUser: userId, limit: EntitlementService.evidenceNotificationLimit),
                grants: try store.grants(forUser: userId), appAccountTokens: try store.appAccountTokens(forUser: userId))
        }
    }
}
