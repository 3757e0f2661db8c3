import Dispatch
import Masthead
public import MastheadAppStore
import MastheadFormats
import MastheadStorage
import Synchronization

/// Answering Apple's refund requests (`CONSUMPTION_REQUEST`) with consumption information: the
/// issues served, the readers' consent, the durable queue of requests and the pass that sends them.
extension EntitlementService {
    /// How long after a `CONSUMPTION_REQUEST` Apple takes the answer: 12 hours.
    static let consumptionDeadlineMilliseconds: Int64 = 12 * 3_600_000
    /// How long one attempt holds a request against other instances: 10 minutes.
    static let consumptionLeaseMilliseconds: Int64 = 10 * 60_000
    /// The waits before retries: a minute, doubled each attempt, at most an hour.
    static let consumptionBackoff = RetryBackoff(first: 60_000, longest: 3_600_000)
    /// Most requests one pass takes.
    static let consumptionPassLimit = 100

    // MARK: Issues served

    /// Notes that the download check answered an issue readable (when the feature is on): the
    /// first answer per pair is written by the store's writer, never on the check's path. Returns
    /// whether the pair is recorded or on its way (false when the feature is off, or the pair was
    /// dropped because the queue is full: a later answer notes it again).
    func noteServed(userId: String, publicationId: String, issueId: String) -> Bool {
        guard consumption.enabled else { return false }
        switch consumption.served.note(userId: userId, publicationId: publicationId, issueId: issueId, at: clock) {
        case .known, .queued: return true
        case .queuedFirst:
            writeServedIssues(completion: { _ in })
            return true
        case .dropped: return false
        }
    }

    /// Queues the write of every issue served and not yet written; `completion` runs after its commit.
    func writeServedIssues(completion: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        let recorder = consumption.served
        // Taken once: the job may run again when another job of its batch fails.
        let taken = Mutex<[ServedIssue]?>(nil)
        writer.submit({ store in
            let issues = taken.withLock { box in
                if box == nil { box = recorder.take() }
                return box ?? []
            }
            try store.recordServedIssues(issues)
            return []
        }) { [self] result in
            let issues = taken.withLock { $0 ?? [] }
            switch result {
            case .success:
                noteWrite(nil)
                recorder.finished(issues, written: true)
                completion(.success(()))
            case .failure(let error):
                noteWrite(error)
                recorder.finished(issues, written: false)
                completion(.failure(error))
            }
        }
    }

    /// Writes every issue served and not yet written, and waits for the commit (of a write under
    /// way too: the writer commits in order).
    func flushServedIssues() throws {
        guard consumption.served.unwrittenCount > 0 else { return }
        let done = DispatchSemaphoreBox()
        writeServedIssues { done.finish($0) }
        try done.wait()
    }

    /// The issues first served to a user, read from the database.
    func servedIssues(forUser userId: String) throws -> [ServedIssue] {
        try reader.withLock { reader throws -> [ServedIssue] in try reader.store.servedIssues(forUser: userId) }
    }

    // MARK: Consent

    /// Records a reader's consent through the group commit; `completion` runs after the commit.
    func setConsumptionConsent(userId: String, consented: Bool, completion: @escaping @Sendable (Result<ConsumptionConsent, any Error>) -> Void) {
        let now = clock()
        write({ store in (try store.setConsumptionConsent(userId: userId, consented: consented, now: now), []) }, completion: completion)
    }

    /// A reader's consent as last recorded, or nil; read from the database.
    func consumptionConsent(forUser userId: String) throws -> ConsumptionConsent? {
        try reader.withLock { reader throws -> ConsumptionConsent? in try reader.store.consumptionConsent(forUser: userId) }
    }

    // MARK: Requests

    /// In a notification's write: queues a `CONSUMPTION_REQUEST` about a transaction linked to a
    /// user (when the feature is on), due at once, to be answered within 12 hours of the
    /// notification's `signedDate`. Returns whether one was queued (the sending thread is woken
    /// after the commit).
    static func queueConsumptionRequest(
        _ notification: SignedNotification, users: Set<ExactKey>, enabled: Bool, now: Instant, store: any EntitlementStore
    ) throws -> Bool {
        guard enabled, notification.payload.notificationType == .consumptionRequest, let transaction = notification.transaction?.transaction,
            let user = users.sorted().first
        else { return false }
        let sent = min(notification.payload.signedDate ?? now, now)
        return try store.queueConsumptionRequest(
            PendingConsumptionRequest(
                environment: transaction.environment, transactionId: transaction.transactionId, userId: user.text, received: now,
                deadline: sent.adding(milliseconds: consumptionDeadlineMilliseconds), nextAttempt: now))
    }

    /// Counts and logs a stored `CONSUMPTION_REQUEST`: queued (and the sending thread woken), or
    /// not, because its transaction is linked to no user.
    func noteConsumptionRequest(_ notification: SignedNotification, queued: Bool) {
        guard consumption.enabled, notification.payload.notificationType == .consumptionRequest else { return }
        let transaction = notification.transaction?.transaction
        let name = transaction.map { "transaction \($0.transactionId) (\($0.environment.rawValue))" } ?? "a notification without a transaction"
        if queued {
            consumption.count { $0.queued += 1 }
            consumption.note("queued \(name)")
            consumption.wakeUp()
        } else {
            consumption.count { $0.notLinked += 1 }
            consumption.note("not queued: \(name) is linked to no user")
        }
    }

    /// How many requests are queued, read from the database; nil when it cannot be read.
    var pendingConsumptionRequests: Int? {
        try? reader.withLock { reader throws -> Int in try reader.store.consumptionRequestCount() }
    }

    /// Starts the thread that sends what is due through `client`: at once, whenever a request is
    /// queued, and every minute; ``close()`` stops it.
    public func startSendingConsumptionInformation(client: AppStoreServerAPIClient) {
        guard consumption.enabled else { return }
        consumption.start(intervalSeconds: 60) { [self] in sendDueConsumptionInformation(client: client) }
    }

    /// One pass: writes the issues served so far, then answers each request due (up to
    /// ``consumptionPassLimit``). Returns how many requests it took.
    @discardableResult
    public func sendDueConsumptionInformation(client: AppStoreServerAPIClient) -> Int {
        do {
            try flushServedIssues()
            let now = clock()
            let due = try reader.withLock { reader throws in try reader.store.dueConsumptionRequests(at: now, limit: Self.consumptionPassLimit) }
            for request in due { try answer(request, client: client) }
            return due.count
        } catch {
            consumption.note("pass failed: \(error)")
            return 0
        }
    }

    /// Answers one due request: given up past its deadline; taken (unless another instance took
    /// it); not sent without the reader's consent; else sent, and removed once Apple accepted it,
    /// or rescheduled with the backoff after a failure Apple may get over.
    private func answer(_ request: PendingConsumptionRequest, client: AppStoreServerAPIClient) throws {
        let now = clock()
        let name = "transaction \(request.transactionId) (\(request.environment.rawValue))"
        guard now < request.deadline else {
            try removeConsumptionRequest(request)
            consumption.count { $0.givenUp += 1 }
            consumption.note("gave up on \(name) after \(request.attempts) attempt(s): Apple's 12 hours have passed")
            return
        }
        guard try writer.answer({ store in try store.claimConsumptionRequest(request, until: now.adding(milliseconds: Self.consumptionLeaseMilliseconds)) })
        else { return }
        let attempts = request.attempts + 1
        guard let consent = try consumptionConsent(forUser: request.userId), consent.consented else {
            try removeConsumptionRequest(request)
            consumption.count { $0.notConsented += 1 }
            consumption.note("not sent for \(name): user \(request.userId) has not consented to sending consumption information")
            return
        }
        let body = try consumptionRequest(for: request, at: now)
        let sent = String(decoding: body.json, as: UTF8.self)
        do {
            try client.sendConsumptionInformation(transactionId: request.transactionId, request: body, environment: request.environment)
        } catch {
            let retry = now.adding(milliseconds: Self.consumptionBackoff.wait(afterAttempt: attempts))
            guard Self.isRetryable(error), retry < request.deadline else {
                try removeConsumptionRequest(request)
                consumption.count { $0.givenUp += 1 }
                consumption.note("gave up on \(name) after \(attempts) attempt(s): \(error)")
                return
            }
            try writer.answer { store in
                try store.rescheduleConsumptionRequest(environment: request.environment, transactionId: request.transactionId, nextAttempt: retry)
            }
            consumption.count { $0.retried += 1 }
            consumption.note("attempt \(attempts) for \(name) failed, next at \(retry): \(error)")
            return
        }
        try removeConsumptionRequest(request)
        consumption.count { $0.sent += 1 }
        consumption.note("sent for \(name) of user \(request.userId): \(sent)")
    }

    /// The body for a request: the reader consented, the content was delivered, the share served
    /// (``ConsumptionShare``) and the configured preference and sample flag.
    func consumptionRequest(for request: PendingConsumptionRequest, at now: Instant) throws -> ConsumptionRequest {
        let history = try history(forUser: request.userId) ?? PurchaseHistory()
        let served = Set(try servedIssues(forUser: request.userId).map { ConsumptionShare.ServedKey(publicationId: $0.publicationId, issueId: $0.issueId) })
        let share = ConsumptionShare(
            transactionId: request.transactionId, history: history, catalog: catalog, environment: request.environment, at: now, served: served)
        return ConsumptionRequest(
            customerConsented: true, deliveryStatus: .delivered, sampleContentProvided: consumption.sampleContentProvided,
            consumptionPercentage: share.milliunits, refundPreference: consumption.refundPreference)
    }

    /// Whether Apple may take the request later: it was unavailable, rate limited, slow, or
    /// refused the key (which the operator may fix); not a refusal of the request itself.
    static func isRetryable(_ error: AppStoreError) -> Bool {
        switch error {
        case .unavailable, .rateLimited, .timedOut, .notAuthorized: true
        default: false
        }
    }

    private func removeConsumptionRequest(_ request: PendingConsumptionRequest) throws {
        try writer.answer { store in try store.removeConsumptionRequest(environment: request.environment, transactionId: request.transactionId) }
    }

}

/// Waits for one completion's result.
private final class DispatchSemaphoreBox: Sendable {
    private let result = Mutex<Result<Void, any Error>?>(nil)
    private let done = DispatchSemaphore(value: 0)

    func finish(_ outcome: Result<Void, any Error>) {
        result.withLock { $0 = outcome }
        done.signal()
    }

    func wait() throws {
        done.wait()
        try result.withLock { $0 }?.get()
    }
}
