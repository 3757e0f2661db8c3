import Foundation
import MastheadCrypto
import MastheadHTTP
import MastheadJSON
public import Synchronization

/// A fake App Store Server API on loopback (plain HTTP, a real socket on a free port): per
/// environment, customers' transactions and statuses, notifications and orders, answered by
/// every endpoint the client uses with data the test chain signed; small pages; failures on
/// demand. It checks every request's JWT (header, claims, expiry, signature with the test key)
/// and answers 401 to a bad one, recording what it saw. It can answer late (a slow Apple);
/// ``HostileHTTPServer`` answers as a broken or hostile one would.
///
/// The production server is at `productionURL` (`…/production`), the sandbox at `sandboxURL`.
public final class FakeAppStoreServerAPI: Sendable {
    /// The key id, issuer id and key the client must sign with: `leaf-key.pem` of the test chain
    /// (a test key; its public half is in `leaf.der`).
    public static let keyId = "TESTKEY001"
    public static let issuerId = "11111111-2222-3333-4444-555555555555"
    public static let privateKeyPath = TestChain.directory.appendingPathComponent("leaf-key.pem").path
    public static func privateKeyPEM() throws -> String { try String(contentsOfFile: privateKeyPath, encoding: .utf8) }

    /// A customer: the transaction ids that find them, their history (signed transactions in
    /// ascending order) and the latest signed data of each subscription.
    public struct Customer: Sendable {
        public var transactionIds: [String]
        public var history: [String]
        /// Get All Subscription Statuses' items; an empty `signedTransaction` is left out of the answer.
        public var statuses: [(originalTransactionId: String, status: Int, signedTransaction: String, signedRenewal: String)]

        /// Creates a customer.
        public init(
            transactionIds: [String], history: [String] = [],
            statuses: [(originalTransactionId: String, status: Int, signedTransaction: String, signedRenewal: String)] = []
        ) {
            self.transactionIds = transactionIds
            self.history = history
            self.statuses = statuses
        }
    }

    /// What one environment knows.
    public struct Store: Sendable {
        public var customers: [Customer] = []
        /// Transaction id → signed transaction (Get Transaction Info).
        public var transactions: [String: String] = [:]
        /// Signed notification payloads and when they were sent (milliseconds).
        public var notifications: [(signedPayload: String, sent: Int64)] = []
        /// Order id → signed transactions.
        public var orders: [String: [String]] = [:]
        /// Transaction id → signed app transaction (Get App Transaction Info).
        public var appTransactions: [String: String] = [:]
        /// Original transaction id → the app account token Set App Account Token gave it.
        public var appAccountTokens: [String: String] = [:]

        /// An empty store.
        public init() {}
    }

    /// A request the fake received, and why its token was refused (nil: accepted).
    public struct Seen: Sendable {
        public var method: String
        public var target: String
        public var token: String?
        public var refusal: String?
        public var body: String
    }

    /// The fake's state; tests change it between calls.
    public struct State: Sendable {
        public var production = Store()
        public var sandbox = Store()
        /// Items per page of history and notification history.
        public var pageSize = 2
        /// The next answers to give instead of the real one: status and `Retry-After`.
        public var failures: [(status: Int, retryAfter: Int?)] = []
        /// The next answers to give instead of the real one, with Apple's error code, before
        /// `failures`: such as 404 with 4040006 (OriginalTransactionIdNotFoundRetryable).
        public var appleErrors: [(status: Int, errorCode: Int)] = []
        /// The next answers to sandbox requests, given before `failures`.
        public var sandboxFailures: [(status: Int, retryAfter: Int?)] = []
        public var seen: [Seen] = []
        /// Next-page tokens (history revisions, notification pagination tokens) answered as
        /// another: real → given, such as `"3": "1"` to send the client back to an older page.
        public var rewoundTokens: [String: String] = [:]
        /// How long after a request arrives its answer is sent: a slow Apple.
        public var delayMilliseconds = 0
    }

    public let state = Mutex(State())
    public let bundleId: String
    let server: FakeHTTPServer<FakeAppStoreServerAPI>
    private let publicKey: Certificate

    /// Starts the fake on a free port, for the app `bundleId`.
    public init(bundleId: String) throws {
        self.bundleId = bundleId
        publicKey = try TestChain.certificate("leaf.der")
        server = try FakeHTTPServer { fake, request, responder in
            let response = fake.answer(request)
            let delay = fake.state.withLock { $0.delayMilliseconds }
            guard delay > 0 else { return responder.send(response) }
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(delay)) { responder.send(response) }
        }
        try server.start(for: self)
    }

    /// Stops the server.
    public func stop() { server.stop() }

    public var productionURL: String { "http://127.0.0.1:\(server.port)/production" }
    public var sandboxURL: String { "http://127.0.0.1:\(server.port)/sandbox" }

    /// The requests received so far.
    public var seen: [Seen] { state.withLock { $0.seen } }

    // MARK: Answers

    private func answer(_ request: HTTPRequest) -> HTTPResponse {
        let token = request.header("Authorization").flatMap { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil }
        let refusal = token.map(check) ?? "no bearer token"
        let (appleError, failure, pageSize, store, rewound) = state.withLock { state in
            state.seen.append(Seen(method: request.method, target: request.target, token: token, refusal: refusal, body: String(decoding: request.body, as: UTF8.self)))
            let sandbox = request.pathSegments.first == "sandbox"
            let appleError = refusal == nil && !state.appleErrors.isEmpty ? state.appleErrors.removeFirst() : nil
            let failure =
                refusal != nil || appleError != nil ? nil
                : sandbox && !state.sandboxFailures.isEmpty ? state.sandboxFailures.removeFirst()
                : state.failures.isEmpty ? nil : state.failures.removeFirst()
            return (appleError, failure, state.pageSize, sandbox ? state.sandbox : state.production, state.rewoundTokens)
        }
        if refusal != nil { return HTTPResponse(status: 401, body: Array("Unauthenticated\n".utf8)) }
        if let appleError { return HTTPResponse(status: appleError.status, body: Self.error(appleError.errorCode, "Error on demand.")) }
        if let failure {
            return HTTPResponse(
                status: failure.status, headers: failure.retryAfter.map { [("Retry-After", String($0))] } ?? [],
                body: Self.error(failure.status * 10_000, "Failure on demand."))
        }
        let segments = Array(request.pathSegments.dropFirst())
        switch (request.method, segments.count > 3 ? Array(segments.prefix(3)) : segments) {
        case ("GET", ["inApps", "v1", "subscriptions"]) where segments.count == 4:
            guard let customer = store.customers.first(where: { $0.transactionIds.contains(segments[3]) }) else { return Self.notFound }
            let items = customer.statuses.map { item in
                let transaction = item.signedTransaction.isEmpty ? "" : #", "signedTransactionInfo": "\#(item.signedTransaction)""#
                return #"{"status": \#(item.status), "originalTransactionId": "\#(item.originalTransactionId)"\#(transaction), "signedRenewalInfo": "\#(item.signedRenewal)"}"#
            }
            return Self.json(#"{"environment": "\#(request.pathSegments[0] == "sandbox" ? "Sandbox" : "Production")", "bundleId": "\#(bundleId)", "data": [{"subscriptionGroupIdentifier": "20000001", "lastTransactions": [\#(items.joined(separator: ", "))]}]}"#)
        case ("GET", ["inApps", "v2", "history"]) where segments.count == 4:
            guard let customer = store.customers.first(where: { $0.transactionIds.contains(segments[3]) }) else { return Self.notFound }
            guard request.query["sort"] == "ASCENDING" else { return HTTPResponse(status: 400, body: Self.error(4_000_021, "Invalid sort.")) }
            let start = Int(request.query["revision"] ?? "0") ?? 0
            let page = Array(customer.history.dropFirst(start).prefix(pageSize))
            let more = start + page.count < customer.history.count
            let revision = String(start + page.count)
            return Self.json(#"{"revision": "\#(rewound[revision] ?? revision)", "hasMore": \#(more), "bundleId": "\#(bundleId)", "signedTransactions": [\#(Self.quoted(page))]}"#)
        case ("GET", ["inApps", "v1", "transactions"]) where segments.count == 4:
            guard let signed = store.transactions[segments[3]] else { return Self.notFound }
            return Self.json(#"{"signedTransactionInfo": "\#(signed)"}"#)
        case ("GET", ["inApps", "v1", "lookup"]) where segments.count == 4:
            guard let signed = store.orders[segments[3]] else { return Self.json(#"{"status": 1, "signedTransactions": []}"#) }
            return Self.json(#"{"status": 0, "signedTransactions": [\#(Self.quoted(signed))]}"#)
        case ("POST", ["inApps", "v1", "notifications"]) where segments.count == 4 && segments[3] == "history":
            guard let root = try? JSONDocument(parsing: request.body).root, let from = root.member("startDate")?.int64, let to = root.member("endDate")?.int64 else {
                return HTTPResponse(status: 400, body: Self.error(4_000_015, "Invalid start date."))
            }
            let matching = store.notifications.filter { $0.sent >= from && $0.sent < to }
            let start = Int(request.query["paginationToken"]?.dropFirst(5) ?? "0") ?? 0
            let page = matching.dropFirst(start).prefix(pageSize)
            let more = start + page.count < matching.count
            let items = page.map { #"{"signedPayload": "\#($0.signedPayload)", "sendAttempts": [{"attemptDate": \#($0.sent), "sendAttemptResult": "SUCCESS"}]}"# }
            let token = "page-\(start + page.count)"
            let next = more ? #""paginationToken": "\#(rewound[token] ?? token)", "# : ""
            return Self.json(#"{\#(next)"hasMore": \#(more), "notificationHistory": [\#(items.joined(separator: ", "))]}"#)
        case ("PUT", ["inApps", "v1", "transactions"]) where segments.count == 5 && segments[4] == "appAccountToken":
            return setAppAccountToken(request, originalTransactionId: segments[3], store: store)
        case ("GET", ["inApps", "v1", "transactions"]) where segments.count == 5 && segments[3] == "appTransactions":
            guard let signed = store.appTransactions[segments[4]] else { return HTTPResponse(status: 404, body: Self.error(4_040_019, "App transaction does not exist.")) }
            return Self.json(#"{"signedAppTransactionInfo": "\#(signed)"}"#)
        case ("PUT", ["inApps", "v2", "transactions"]) where segments.count == 5 && segments[3] == "consumption":
            // Send Consumption Information: accepted without a body (the request is in `seen`).
            return HTTPResponse(status: 202, body: [])
        default:
            return HTTPResponse(status: 404, body: Self.error(4_040_000, "No such endpoint."))
        }
    }

    /// Set App Account Token: the body must be exactly `{"appAccountToken": "<lower-case UUID>"}`
    /// sent as JSON, for a subscription the environment knows; the token is recorded.
    private func setAppAccountToken(_ request: HTTPRequest, originalTransactionId: String, store: Store) -> HTTPResponse {
        guard request.header("Content-Type") == "application/json", let root = try? JSONDocument(parsing: request.body).root,
            root.kind == .object, root.count == 1, let token = root.member("appAccountToken")?.string,
            let uuid = UUID(uuidString: token), uuid.uuidString.lowercased() == token
        else { return HTTPResponse(status: 400, body: Self.error(4_000_183, "Invalid app account token UUID.")) }
        guard store.transactions[originalTransactionId] != nil || store.customers.contains(where: { $0.transactionIds.contains(originalTransactionId) }) else {
            return Self.notFound
        }
        let sandbox = request.pathSegments.first == "sandbox"
        state.withLock { state in
            if sandbox { state.sandbox.appAccountTokens[originalTransactionId] = token } else { state.production.appAccountTokens[originalTransactionId] = token }
        }
        return HTTPResponse(status: 200, body: [])
    }

    private static let notFound = HTTPResponse(status: 404, body: error(4_040_010, "Transaction id not found."))

    private static func error(_ code: Int, _ message: String) -> [UInt8] { Array(#"{"errorCode": \#(code), "errorMessage": "\#(message)"}"#.utf8) }

    private static func json(_ text: String) -> HTTPResponse { .json(200, Array(text.utf8)) }

    private static func quoted(_ tokens: [String]) -> String { tokens.map { "\"\($0)\"" }.joined(separator: ", ") }

    // MARK: The token

    /// Why `token` is not a valid App Store Server API token for this app, or nil when it is.
    func check(_ token: String) -> String? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3 else { return "not three parts" }
        guard let headerBytes = try? Base64.decode(parts[0], .url), let header = try? JSONDocument(parsing: headerBytes).root else { return "header not JSON" }
        guard let payloadBytes = try? Base64.decode(parts[1], .url), let claims = try? JSONDocument(parsing: payloadBytes).root else { return "payload not JSON" }
        guard header.member("alg")?.string == "ES256" else { return "alg is not ES256" }
        guard header.member("typ")?.string == "JWT" else { return "typ is not JWT" }
        guard header.member("kid")?.string == Self.keyId else { return "kid is not \(Self.keyId)" }
        guard claims.member("iss")?.string == Self.issuerId else { return "iss is not \(Self.issuerId)" }
        guard claims.member("aud")?.string == "appstoreconnect-v1" else { return "aud is not appstoreconnect-v1" }
        guard claims.member("bid")?.string == bundleId else { return "bid is not \(bundleId)" }
        guard let issued = claims.member("iat")?.int64, let expires = claims.member("exp")?.int64 else { return "no iat or exp" }
        guard expires > issued, expires - issued <= 3600 else { return "exp is not within 60 minutes after iat" }
        guard expires > Int64(Date().timeIntervalSince1970) else { return "expired" }
        guard let signature = try? Base64.decode(parts[2], .url) else { return "signature not base64url" }
        do { try publicKey.verifyES256(signature: signature, over: Array((parts[0] + "." + parts[1]).utf8)) } catch { return "signature: \(error)" }
        return nil
    }
}
