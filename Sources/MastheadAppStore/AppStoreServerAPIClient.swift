import Foundation
public import Masthead
import MastheadClock
public import MastheadFormats
import MastheadJSON
import Synchronization

/// Asks Apple's App Store Server API about a customer's purchases: Get All Subscription
/// Statuses, Get Transaction History (v2), Get Transaction Info, Get Notification History,
/// Look Up Order ID and Get App Transaction Info; and tells it with Set App Account Token.
///
/// Every request carries a bearer token signed with the publisher's In-App Purchase key
/// (``AppStoreCredentials``), reused until near its expiry. Calls block their thread. What Apple
/// answers is verified before it is returned: every signed transaction, renewal info,
/// notification payload and app transaction through the ``MastheadFormats/SignedDataVerifier`` given (chain to the
/// configured roots, bundle id, App Apple ID, accepted environments); one refused token fails
/// the call with its JSON path.
///
/// - Pages (`hasMore`) are followed to the end, up to ``Configuration/maxPages`` pages and
///   ``Configuration/maxTotalBytes`` bytes; a page token already followed is a loop, refused.
/// - A call about a transaction id names its ``Servers``: one environment's server only (the
///   subscription's environment is known), or production then the sandbox when production does
///   not know the id (error 4040005 or 4040010), as verifyReceipt's 21007 is; never the sandbox
///   when the verifier does not accept sandbox data.
/// - Apple's retryable errors (HTTP 404 with 4040002, 4040004 or 4040006; 5000001 and any 5xx)
///   are retried with the backoff.
/// - HTTP 429 waits what `Retry-After` asks (at least the backoff; more than
///   ``Configuration/maxWaitMilliseconds`` gives up); network failures and 5xx wait with
///   exponential backoff; ``Configuration/attempts`` bounds the tries of one request.
/// - Each request ends by the transport's total deadline (a timeout counts as a network
///   failure); a call given a deadline (``transactionHistory(transactionId:servers:deadline:)``)
///   sends no request and waits for no retry past it: ``AppStoreError/timedOut(endpoint:last:)``.
/// - HTTP 401 or 403 is a configuration error naming the key id and issuer id. The token is
///   dropped, and the refusal is remembered for the environment asked for 5 minutes: calls to it
///   fail with the same error without asking Apple until then. A refusal of a sandbox fallback is
///   not remembered.
///
/// Safe to use from several threads.
public final class AppStoreServerAPIClient: Sendable {
    /// Where Apple is and how patiently it is asked.
    public struct Configuration: Sendable {
        /// The production server's base URL.
        public var productionURL = "https://api.storekit.itunes.apple.com"
        /// The sandbox server's base URL.
        public var sandboxURL = "https://api.storekit-sandbox.itunes.apple.com"
        /// Whether `http://` base URLs are allowed: for tests against a local fake only.
        public var allowsHTTP = false
        /// Tries of one request on 429, 5xx and network failures.
        public var attempts = 4
        /// The first retry's wait; each next one twice as long.
        public var backoffMilliseconds = 500
        /// The longest wait before a retry; a `Retry-After` asking more gives up.
        public var maxWaitMilliseconds = 60_000
        /// Most pages one history or notification history call reads.
        public var maxPages = 1000
        /// Most bytes the answers of one history or notification history call hold together,
        /// all pages counted (64 MiB); one answer is bounded by the transport's limit.
        public var maxTotalBytes = 64 << 20

        /// The defaults: Apple's servers.
        public init() {}
    }

    public let configuration: Configuration
    /// Verifies every signed token of every answer.
    public let verifier: SignedDataVerifier
    let transport: HTTPSTransport
    let tokens: APITokenIssuer
    let sleep: @Sendable (Int) -> Void
    /// The time in milliseconds since 1970.
    let now: @Sendable () -> Int64
    /// Per environment, the 401/403 error Apple answered last and until when later calls fail
    /// with it without asking.
    let refusals = Mutex<[Environment: (error: AppStoreError, until: Int64)]>([:])

    /// How long a refused token is remembered for its environment: 5 minutes.
    static let refusalMemoryMilliseconds: Int64 = 5 * 60_000

    /// Creates a client signing its tokens with `credentials` for the bundle id `verifier` checks.
    /// - Parameters:
    ///   - transport: the HTTP client (its timeout and answer size limit).
    ///   - now: the time in milliseconds since 1970, for the tokens' `iat` and `exp` and how long a
    ///     refusal is remembered (default: the system clock).
    ///   - sleep: waits the given milliseconds before a retry (default: the thread sleeps).
    /// - Throws: ``AppStoreError/invalidBaseURL(setting:url:)`` for a base URL that is not https
    ///   (nor http while ``Configuration/allowsHTTP``); ``AppStoreError/invalidCredentials(_:)``.
    public init(
        credentials: AppStoreCredentials, verifier: SignedDataVerifier, configuration: Configuration = Configuration(),
        transport: HTTPSTransport = HTTPSTransport(), now: (@Sendable () -> Int64)? = nil, sleep: (@Sendable (Int) -> Void)? = nil
    ) throws(AppStoreError) {
        for (setting, url) in [("appStoreServerAPIProductionURL", configuration.productionURL), ("appStoreServerAPISandboxURL", configuration.sandboxURL)] {
            let secure = url.lowercased().hasPrefix("https://")
            guard secure || (configuration.allowsHTTP && url.lowercased().hasPrefix("http://")) else { throw .invalidBaseURL(setting: setting, url: url) }
        }
        self.configuration = configuration
        self.verifier = verifier
        self.transport = transport
        self.sleep = sleep ?? { Thread.sleep(forTimeInterval: Double($0) / 1000) }
        let now = now ?? { SystemClock.epochMilliseconds() }
        self.now = now
        tokens = try APITokenIssuer(credentials: credentials, bundleId: verifier.app.bundleId, now: now)
    }

    /// The key id and issuer id the tokens carry.
    public var credentials: AppStoreCredentials { tokens.credentials }

    // MARK: Endpoints

    /// Get All Subscription Statuses (`GET /inApps/v1/subscriptions/{transactionId}`): the latest
    /// signed transaction and renewal info of every subscription of the customer `transactionId`
    /// (any of their transaction ids) belongs to, verified.
    /// - Parameter servers: the server to ask, or production then the sandbox.
    public func subscriptionStatuses(transactionId: String, servers: Servers) throws(AppStoreError) -> SubscriptionStatuses {
        let (first, fallsBack) = route(servers)
        let endpoint = Endpoint(method: "GET", path: "/inApps/v1/subscriptions/" + Endpoint.segment(transactionId), fallsBackToSandbox: fallsBack)
        let answer = try send(endpoint, environment: first)
        let response = try read(answer, endpoint) { (body) throws(FormatError) in try StatusResponse(decoding: body) }
        var statuses = SubscriptionStatuses(environment: answer.environment)
        for (groupIndex, group) in response.data.enumerated() {
            let groupPath = JSONPath.element("$.data", groupIndex)
            for (index, item) in group.lastTransactions.enumerated() {
                let path = JSONPath.element(JSONPath.member(groupPath, "lastTransactions"), index)
                let transaction = try item.signedTransactionInfo.map { (token) throws(AppStoreError) in
                    try verified(endpoint, answer) { () throws(FormatError) in try verifier.transaction(token, path: JSONPath.member(path, "signedTransactionInfo")) }
                }
                let renewal = try item.signedRenewalInfo.map { (token) throws(AppStoreError) in
                    try verified(endpoint, answer) { () throws(FormatError) in try verifier.renewal(token, path: JSONPath.member(path, "signedRenewalInfo")) }
                }
                statuses.subscriptions.append(
                    SubscriptionStatuses.Subscription(
                        subscriptionGroupIdentifier: group.subscriptionGroupIdentifier, status: item.status,
                        originalTransactionId: item.originalTransactionId, transaction: transaction, renewal: renewal))
            }
        }
        return statuses
    }

    /// Get Transaction History, version 2 (`GET /inApps/v2/history/{transactionId}`, sorted
    /// ascending): every transaction of the customer `transactionId` belongs to, every page read
    /// and every token verified.
    /// - Parameters:
    ///   - servers: the server to ask, or production then the sandbox (decided by the first page;
    ///     the next pages ask the server that answered it).
    ///   - deadline: when the whole call (every page, retry and wait) must have ended, on the
    ///     monotonic clock (`SystemClock.monotonicMilliseconds()`); past it the call fails with
    ///     ``AppStoreError/timedOut(endpoint:last:)``. Nil: each request has the transport's timeout only.
    public func transactionHistory(transactionId: String, servers: Servers, deadline: Int64? = nil) throws(AppStoreError) -> TransactionHistory {
        let path = "/inApps/v2/history/" + Endpoint.segment(transactionId)
        let (first, fallsBack) = route(servers)
        var history = TransactionHistory(environment: first)
        var revision: String?
        var seen: Set<String> = []
        var bytes = 0
        var server = first
        for page in 1...configuration.maxPages {
            var query = [("sort", "ASCENDING")]
            if let revision { query.append(("revision", revision)) }
            let endpoint = Endpoint(method: "GET", path: path, query: query, page: page, fallsBackToSandbox: fallsBack && page == 1, deadline: deadline)
            let answer = try send(endpoint, environment: server)
            try count(answer, endpoint, into: &bytes)
            server = answer.environment
            history.environment = server
            let response = try read(answer, endpoint) { (body) throws(FormatError) in try HistoryResponse(decoding: body) }
            for (index, token) in response.signedTransactions.enumerated() {
                history.transactions.append(
                    try verified(endpoint, answer) { () throws(FormatError) in
                        try verifier.transaction(token, path: JSONPath.element("$.signedTransactions", index))
                    })
            }
            guard response.hasMore == true else { return history }
            guard let next = response.revision else {
                throw .pagination(endpoint: endpoint.name(answer.environment), reason: "hasMore without a revision")
            }
            guard seen.insert(next).inserted else {
                throw .pagination(endpoint: endpoint.name(answer.environment), reason: "hasMore with a revision already followed (a loop)")
            }
            revision = next
        }
        throw .pagination(endpoint: "GET \(path)", reason: "more than \(configuration.maxPages) pages")
    }

    /// Get Transaction Info (`GET /inApps/v1/transactions/{transactionId}`): one transaction, verified.
    /// - Parameter servers: the server to ask, or production then the sandbox.
    public func transactionInfo(transactionId: String, servers: Servers) throws(AppStoreError) -> SignedTransaction {
        let (first, fallsBack) = route(servers)
        let endpoint = Endpoint(method: "GET", path: "/inApps/v1/transactions/" + Endpoint.segment(transactionId), fallsBackToSandbox: fallsBack)
        let answer = try send(endpoint, environment: first)
        let response = try read(answer, endpoint) { (body) throws(FormatError) in try TransactionInfoResponse(decoding: body) }
        guard let token = response.signedTransactionInfo else {
            throw .unreadableAnswer(endpoint: endpoint.name(answer.environment), reason: .missingField(path: "$.signedTransactionInfo", line: 1))
        }
        return try verified(endpoint, answer) { () throws(FormatError) in try verifier.transaction(token, path: "$.signedTransactionInfo") }
    }

    /// Get Notification History (`POST /inApps/v1/notifications/history`): the version 2
    /// notifications Apple sent (or tried to send) from `start` until `end` (Apple keeps 180
    /// days), every page read and every payload verified, in Apple's order.
    public func notificationHistory(from start: Instant, to end: Instant, environment: Environment = .production) throws(AppStoreError) -> [NotificationHistoryEntry] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.field("startDate", start.milliseconds)
        writer.field("endDate", end.milliseconds)
        writer.endObject()
        let body = writer.bytes
        var entries: [NotificationHistoryEntry] = []
        var token: String?
        var seen: Set<String> = []
        var bytes = 0
        for page in 1...configuration.maxPages {
            let endpoint = Endpoint(
                method: "POST", path: "/inApps/v1/notifications/history", query: token.map { [("paginationToken", $0)] } ?? [], body: body, page: page)
            let answer = try send(endpoint, environment: environment)
            try count(answer, endpoint, into: &bytes)
            let response = try read(answer, endpoint) { (body) throws(FormatError) in try NotificationHistoryResponse(decoding: body) }
            for (index, item) in response.notificationHistory.enumerated() {
                let path = JSONPath.member(JSONPath.element("$.notificationHistory", index), "signedPayload")
                guard let signedPayload = item.signedPayload else {
                    throw .unreadableAnswer(endpoint: endpoint.name(environment), reason: .missingField(path: path, line: 1))
                }
                let notification = try verified(endpoint, answer) { () throws(FormatError) in try verifier.notification(signedPayload, path: path) }
                entries.append(NotificationHistoryEntry(signedPayload: signedPayload, notification: notification, sendAttempts: item.sendAttempts))
            }
            guard response.hasMore == true else { return entries }
            guard let next = response.paginationToken else {
                throw .pagination(endpoint: endpoint.name(environment), reason: "hasMore without a paginationToken")
            }
            guard seen.insert(next).inserted else {
                throw .pagination(endpoint: endpoint.name(environment), reason: "hasMore with a paginationToken already followed (a loop)")
            }
            token = next
        }
        throw .pagination(endpoint: "POST /inApps/v1/notifications/history", reason: "more than \(configuration.maxPages) pages")
    }

    /// Look Up Order ID (`GET /inApps/v1/lookup/{orderId}`): whether the order id (from the
    /// customer's emailed receipt) is valid, and its transactions, verified.
    public func lookUpOrder(orderId: String, environment: Environment = .production) throws(AppStoreError) -> OrderLookup {
        let endpoint = Endpoint(method: "GET", path: "/inApps/v1/lookup/" + Endpoint.segment(orderId))
        let answer = try send(endpoint, environment: environment)
        let response = try read(answer, endpoint) { (body) throws(FormatError) in try OrderLookupResponse(decoding: body) }
        var lookup = OrderLookup(isValid: response.status == 0)
        for (index, token) in response.signedTransactions.enumerated() {
            lookup.transactions.append(
                try verified(endpoint, answer) { () throws(FormatError) in try verifier.transaction(token, path: JSONPath.element("$.signedTransactions", index)) })
        }
        return lookup
    }

    // MARK: Reading answers

    /// Adds the answer's size to `bytes`, the pages of one call so far.
    /// - Throws: ``AppStoreError/answerTooLarge(endpoint:limit:)`` past ``Configuration/maxTotalBytes``.
    private func count(_ answer: Answer, _ endpoint: Endpoint, into bytes: inout Int) throws(AppStoreError) {
        bytes += answer.body.count
        guard bytes <= configuration.maxTotalBytes else {
            throw .answerTooLarge(endpoint: endpoint.name(answer.environment), limit: configuration.maxTotalBytes)
        }
    }

    /// The answer's body read as `Response`.
    func read<Response>(_ answer: Answer, _ endpoint: Endpoint, _ decode: ([UInt8]) throws(FormatError) -> Response) throws(AppStoreError) -> Response {
        do {
            return try decode(answer.body)
        } catch {
            throw .unreadableAnswer(endpoint: endpoint.name(answer.environment), reason: error)
        }
    }

    /// `verify`'s value, its refusal reported as ``AppStoreError/signedDataRefused(endpoint:reason:)``.
    func verified<Value>(_ endpoint: Endpoint, _ answer: Answer, _ verify: () throws(FormatError) -> Value) throws(AppStoreError) -> Value {
        do { return try verify() } catch { throw .signedDataRefused(endpoint: endpoint.name(answer.environment), reason: error) }
    }
}
