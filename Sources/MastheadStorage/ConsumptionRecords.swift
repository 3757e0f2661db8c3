public import Masthead

/// The first time an issue was answered readable to a user by the download check.
public struct ServedIssue: Hashable, Sendable {
    public var userId: String
    public var publicationId: String
    public var issueId: String
    public var firstServed: Instant

    /// Creates a record.
    public init(userId: String, publicationId: String, issueId: String, firstServed: Instant) {
        self.userId = userId
        self.publicationId = publicationId
        self.issueId = issueId
        self.firstServed = firstServed
    }
}

/// Whether a reader consented to the publisher sending Apple consumption information about
/// their purchases, and when that was recorded.
public struct ConsumptionConsent: Hashable, Sendable {
    public var userId: String
    public var consented: Bool
    public var recorded: Instant
}

/// A `CONSUMPTION_REQUEST` Apple sent about a transaction linked to a user, still to be answered
/// with Send Consumption Information by its deadline.
public struct PendingConsumptionRequest: Hashable, Sendable {
    public var environment: Environment
    public var transactionId: String
    public var userId: String
    /// When the notification was stored.
    public var received: Instant
    /// Past it Apple no longer takes the answer (12 hours after the notification): it is given up.
    public var deadline: Instant
    /// How many sends were tried.
    public var attempts: Int
    /// When the next send may be tried.
    public var nextAttempt: Instant

    /// Creates a pending request.
    public init(
        environment: Environment, transactionId: String, userId: String, received: Instant, deadline: Instant, attempts: Int = 0,
        nextAttempt: Instant
    ) {
        self.environment = environment
        self.transactionId = transactionId
        self.userId = userId
        self.received = received
        self.deadline = deadline
        self.attempts = attempts
        self.nextAttempt = nextAttempt
    }
}

/// What answering Apple's refund requests with consumption information keeps in a store: the
/// issues served, the readers' consent and the pending requests. Part of ``EntitlementStore``.
public protocol ConsumptionStore: AnyObject {
    /// Records issues served, each pair (user, publication, issue) once: a pair stored already
    /// keeps its first instant. Returns how many were new.
    @discardableResult
    func recordServedIssues(_ issues: [ServedIssue]) throws(StorageError) -> Int

    /// The issues first served to a user, by publication and issue id.
    func servedIssues(forUser userId: String) throws(StorageError) -> [ServedIssue]

    /// Records a reader's consent (or its withdrawal) at `now`, replacing the previous one.
    func setConsumptionConsent(userId: String, consented: Bool, now: Instant) throws(StorageError) -> ConsumptionConsent

    /// A reader's consent as last recorded, or nil when none was.
    func consumptionConsent(forUser userId: String) throws(StorageError) -> ConsumptionConsent?

    /// Queues a request; one already queued for the same transaction is kept as it is. Returns
    /// whether it was queued.
    @discardableResult
    func queueConsumptionRequest(_ request: PendingConsumptionRequest) throws(StorageError) -> Bool

    /// Up to `limit` queued requests whose next attempt is due at `now`, soonest first.
    func dueConsumptionRequests(at now: Instant, limit: Int) throws(StorageError) -> [PendingConsumptionRequest]

    /// Takes a due request for one attempt: moves its next attempt to `until` and counts the
    /// attempt, unless another process took it first (its next attempt changed). Returns whether
    /// this caller has it.
    func claimConsumptionRequest(_ request: PendingConsumptionRequest, until: Instant) throws(StorageError) -> Bool

    /// Moves a request's next attempt (a send failed and is tried again).
    func rescheduleConsumptionRequest(environment: Environment, transactionId: String, nextAttempt: Instant) throws(StorageError)

    /// Removes a request: answered, or given up.
    func removeConsumptionRequest(environment: Environment, transactionId: String) throws(StorageError)

    /// How many requests are queued.
    func consumptionRequestCount() throws(StorageError) -> Int
}
