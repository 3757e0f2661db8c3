public import Masthead

/// What the service last reported to its webhooks about one reader's entitlement to one
/// publication in one environment (`entitlements.changed` events): the answer's state and readable
/// count, how many events it sent for it, and when the answer may next change with time alone.
public struct ReportedEntitlement: Sendable, Hashable {
    /// The publication and environment it is about.
    public struct Key: Sendable, Hashable {
        public var publicationId: ExactKey
        public var environment: Environment

        public init(publicationId: String, environment: Environment) {
            self.publicationId = ExactKey(publicationId)
            self.environment = environment
        }
    }

    /// The two values an event compares: the subscription state (R15) and the number of readable issues.
    public struct Answer: Sendable, Hashable {
        public var state: SubscriptionState
        public var readable: Int

        public init(state: SubscriptionState, readable: Int) {
            self.state = state
            self.readable = readable
        }

        /// Nothing at all: the answer before any event.
        public static let nothing = Answer(state: .none, readable: 0)
    }

    public var answer: Answer
    /// The last event's sequence number (0 before the first).
    public var sequence: Int64
    /// When the answer may next change with time alone (``Masthead/PublicationEntitlement/stable``'s
    /// upper bound), or nil when never.
    public var due: Instant?

    public init(answer: Answer, sequence: Int64, due: Instant?) {
        self.answer = answer
        self.sequence = sequence
        self.due = due
    }
}

/// The last reported entitlements kept for `entitlements.changed` events. Part of ``EntitlementStore``.
public protocol EntitlementReportStore: AnyObject {
    /// Locks reporting against other writers until the caller's transaction ends (where writers
    /// run concurrently; nothing where one writer holds the whole database), so that two writers
    /// never report the same change: the second waits until the first commits, and what it reads
    /// after (histories, reports) includes the first one's writes.
    func lockReporting() throws(StorageError)

    /// What was last reported for a reader, by publication and environment; nil for a user never
    /// seen. Call ``lockReporting()`` first in the transaction.
    func reportedEntitlements(forUser userId: String) throws(StorageError) -> [ReportedEntitlement.Key: ReportedEntitlement]?

    /// Stores what was reported for a reader, publication and environment, in the caller's transaction.
    func storeReportedEntitlement(_ reported: ReportedEntitlement, forUser userId: String, key: ReportedEntitlement.Key) throws(StorageError)

    /// Up to `limit` readers with an answer due to change by `now` (with time alone), in user id order.
    func usersWithReportsDue(by now: Instant, limit: Int) throws(StorageError) -> [String]

    /// Makes every report of a publication due by `instant` at the latest (an issue published
    /// through the API, readable to some from then), in the caller's transaction; call
    /// ``lockReporting()`` first.
    func makeReportsDue(publicationId: String, by instant: Instant) throws(StorageError)
}
