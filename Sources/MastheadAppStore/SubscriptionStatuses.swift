public import Masthead
public import MastheadFormats

/// What Get All Subscription Statuses answered, verified: each subscription's status and its
/// latest transaction and renewal info.
public struct SubscriptionStatuses: Sendable {
    /// One subscription of the customer.
    public struct Subscription: Sendable {
        public var subscriptionGroupIdentifier: String?
        public var status: AppStoreSubscriptionStatus?
        public var originalTransactionId: String?
        /// The latest transaction, verified.
        public var transaction: SignedTransaction?
        /// The renewal info, verified.
        public var renewal: SignedRenewal?
    }

    /// The server that answered (the sandbox after a fallback).
    public var environment: Environment
    public var subscriptions: [Subscription] = []

    /// The transactions and renewal infos, to merge as a version 2 notification's are (R2.8).
    public var history: PurchaseHistory {
        PurchaseHistory(
            transactions: subscriptions.flatMap { $0.transaction?.transactions ?? [] }, renewals: subscriptions.compactMap { $0.renewal?.renewal })
    }
}

/// What Get Transaction History answered, every page read, verified.
public struct TransactionHistory: Sendable {
    /// The server that answered (the sandbox after a fallback).
    public var environment: Environment
    /// The transactions, in Apple's ascending order.
    public var transactions: [SignedTransaction] = []

    /// The transactions as a history to merge (R2.8).
    public var history: PurchaseHistory { PurchaseHistory(transactions: transactions.flatMap(\.transactions)) }
}

/// One notification of Get Notification History, verified.
public struct NotificationHistoryEntry: Sendable {
    /// The notification's `signedPayload` as Apple sent it: a body `{"signedPayload": …}` to store
    /// as a received notification is.
    public var signedPayload: String
    /// The payload and the transaction and renewal info it carries, verified.
    public var notification: SignedNotification
    /// Apple's attempts to send it.
    public var sendAttempts: [SendAttemptItem]
}

/// What Look Up Order ID answered, verified.
public struct OrderLookup: Sendable {
    /// Whether Apple knows the order id (`status` 0).
    public var isValid: Bool
    /// The order's transactions.
    public var transactions: [SignedTransaction] = []
}
