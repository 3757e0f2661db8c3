import Dispatch
import Foundation
import MastheadCrypto
import MastheadHTTP
import MastheadJSON
public import Synchronization

/// A fake Google on loopback (plain HTTP, a real socket on a free port), answering what Masthead
/// asks Google for Play Billing:
///
/// - `GET /oauth2/v3/certs`: the JWKS of the key that signs Pub/Sub push tokens (``mintPushToken(audience:email:)``);
/// - `POST /token`: the OAuth 2.0 JWT-bearer grant, the assertion's signature checked with the
///   service account's public key, its `iss`, `aud` (``tokenURL``), scope, `kid`, times and `grant_type`;
/// - under ``apiURL``, the Play Developer API: `purchases.subscriptionsv2.get`,
///   `purchases.products.get`, `:acknowledge` of subscriptions and products, and the Voided
///   Purchases API (small pages), each asking for an access token the token endpoint gave.
///
/// Tests script each token's state (``State``), failures for the next calls, and read every
/// request it received (``seen``). An acknowledgement changes the token's state as Google's does.
public final class FakeGooglePlay: Sendable {
    /// The service account's email and key id (`client_email` and `private_key_id` of the
    /// fixture `service-account.json`).
    public static let serviceAccountEmail = "play-reader@masthead-test.iam.gserviceaccount.com"
    public static let serviceAccountKeyId = "0123456789abcdef0123456789abcdef01234567"
    /// The push subscription's service account, the `email` of Pub/Sub's OIDC tokens.
    public static let pushServiceAccount = "pubsub-push@masthead-test.iam.gserviceaccount.com"
    /// The `kid` Google's signing key has in the JWKS.
    public static let signingKeyId = "masthead-test-oidc-1"

    /// The API endpoint a request addressed, for failures on demand.
    public enum Endpoint: Sendable, Hashable {
        case token, subscription, product, acknowledge, voidedPurchases, jwks
    }

    /// A failure answered instead of the real answer: its status (429, 500, 401, …), an optional
    /// `Retry-After`, and the endpoint it is for (nil: the next API call, whichever it is).
    public struct Failure: Sendable {
        public var status: Int
        public var retryAfter: Int?
        public var endpoint: Endpoint?

        /// A failure for the next call to `endpoint` (any API call when nil).
        public init(status: Int, retryAfter: Int? = nil, endpoint: Endpoint? = nil) {
            self.status = status
            self.retryAfter = retryAfter
            self.endpoint = endpoint
        }
    }

    /// A request the fake received: what it asked, and why it was refused (nil: answered).
    public struct Seen: Sendable {
        public var method: String
        public var target: String
        public var endpoint: Endpoint?
        public var body: String
        public var status: Int
        public var refusal: String?
    }

    /// The fake's state; tests change it between calls.
    public struct State: Sendable {
        /// Subscription purchase tokens (compared by their exact bytes).
        public var subscriptions: [(token: String, subscription: Subscription)] = []
        /// One-time purchase tokens.
        public var products: [(token: String, product: Product)] = []
        /// What the Voided Purchases API lists, oldest first.
        public var voided: [VoidedPurchase] = []
        /// Voided purchases per page.
        public var voidedPageSize = 2
        /// The next answers to give instead of the real ones, first first.
        public var failures: [Failure] = []
        /// Seconds an access token lives (`expires_in`).
        public var accessTokenLifetime = 3600
        /// Access tokens given, in order; the API accepts these only.
        public var accessTokens: [String] = []
        public var seen: [Seen] = []
        /// Endpoints whose requests are held unanswered until ``FakeGooglePlay/release(_:)``.
        public var held: Set<Endpoint> = []

        /// The state of the subscription token `token`.
        public func subscription(_ token: String) -> Subscription? {
            subscriptions.first { $0.token.utf8.elementsEqual(token.utf8) }?.subscription
        }

        /// Sets (or adds) the subscription token `token`.
        public mutating func set(_ token: String, _ subscription: Subscription) {
            if let index = subscriptions.firstIndex(where: { $0.token.utf8.elementsEqual(token.utf8) }) {
                subscriptions[index].subscription = subscription
            } else {
                subscriptions.append((token, subscription))
            }
        }

        /// The one-time purchase `token` of `productId`.
        public func product(_ token: String) -> Product? {
            products.first { $0.token.utf8.elementsEqual(token.utf8) }?.product
        }

        /// Sets (or adds) the one-time purchase token `token`.
        public mutating func set(_ token: String, _ product: Product) {
            if let index = products.firstIndex(where: { $0.token.utf8.elementsEqual(token.utf8) }) {
                products[index].product = product
            } else {
                products.append((token, product))
            }
        }
    }

    public let state = Mutex(State())
    /// The package (application id) the API answers for.
    public let packageName: String
    let server: FakeHTTPServer<FakeGooglePlay>
    let keys: Keys

    /// Starts the fake on a free port, for the app `packageName`.
    public init(packageName: String) throws {
        self.packageName = packageName
        keys = try Keys.load()
        server = try FakeHTTPServer { fake, request, responder in fake.receive(request, responder) }
        try server.start(for: self)
    }

    /// Stops the server, answering the requests held first.
    public func stop() {
        for endpoint in Set(parked.withLock { $0.map(\.endpoint) }) { release(endpoint) }
        server.stop()
    }

    /// Requests held unanswered (``State/held``).
    private let parked = Mutex<[(endpoint: Endpoint, request: HTTPRequest, responder: HTTPResponder)]>([])

    /// Answers `request`, or holds it while its endpoint is held.
    private func receive(_ request: HTTPRequest, _ responder: HTTPResponder) {
        if let endpoint = Route(request, packageName: packageName)?.endpoint {
            let held = state.withLock { $0.held.contains(endpoint) }
            if held { return parked.withLock { $0.append((endpoint, request, responder)) } }
        }
        responder.send(answer(request))
    }

    /// Stops holding the requests of `endpoint`, and answers those held.
    public func release(_ endpoint: Endpoint) {
        state.withLock { _ = $0.held.remove(endpoint) }
        let released = parked.withLock { parked in
            let released = parked.filter { $0.endpoint == endpoint }
            parked.removeAll { $0.endpoint == endpoint }
            return released
        }
        for held in released { held.responder.send(answer(held.request)) }
    }

    /// Waits until `count` requests of `endpoint` are held, at most `seconds`; answers whether they are.
    public func waitUntilHolding(_ count: Int, _ endpoint: Endpoint, seconds: Double = 20) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while parked.withLock({ $0.filter { $0.endpoint == endpoint }.count }) < count {
            guard Date() < deadline else { return false }
            usleep(2_000)
        }
        return true
    }

    /// The base URL of the Play Developer API (`googlePlayAPIURL`).
    public var apiURL: String { "http://127.0.0.1:\(server.port)" }
    /// The OAuth 2.0 token endpoint (`googlePlayTokenURL`).
    public var tokenURL: String { "http://127.0.0.1:\(server.port)/token" }
    /// Google's signing keys (`googlePlayJWKSURL`).
    public var jwksURL: String { "http://127.0.0.1:\(server.port)/oauth2/v3/certs" }

    /// The requests received so far.
    public var seen: [Seen] { state.withLock { $0.seen } }

    /// The requests received so far for `endpoint`, answered or not.
    public func seen(_ endpoint: Endpoint) -> [Seen] { seen.filter { $0.endpoint == endpoint } }

    // MARK: Answers

    private func answer(_ request: HTTPRequest) -> HTTPResponse {
        let route = Route(request, packageName: packageName)
        let body = String(decoding: request.body, as: UTF8.self)
        var refusal: String?
        var response: HTTPResponse
        switch route {
        case .jwks:
            if let failure = nextFailure(for: .jwks) {
                response = Self.error(failure.status, "FAILURE_ON_DEMAND", "Failure on demand.")
            } else {
                response = .json(200, keys.jwks)
            }
        case .token:
            if let failure = nextFailure(for: .token) {
                response = Self.error(failure.status, "FAILURE_ON_DEMAND", "Failure on demand.")
            } else {
                (response, refusal) = grant(request)
            }
        case nil:
            response = Self.error(404, "NOT_FOUND", "No such endpoint.")
        default:
            let token = request.header("Authorization").flatMap { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil }
            let known = token.map { token in state.withLock { $0.accessTokens.contains { $0.utf8.elementsEqual(token.utf8) } } } ?? false
            if !known {
                refusal = token == nil ? "no bearer token" : "unknown access token"
                response = Self.error(401, "UNAUTHENTICATED", "Request had invalid authentication credentials.")
            } else if let failure = nextFailure(for: route?.endpoint) {
                // Instead of the real answer: nothing it would change changes.
                response = Self.error(failure.status, failure.status == 429 ? "RESOURCE_EXHAUSTED" : "FAILURE_ON_DEMAND", "Failure on demand.")
                if let retryAfter = failure.retryAfter { response.headers.append(("Retry-After", String(retryAfter))) }
            } else {
                response = api(route!, request)
            }
        }
        let seen = Seen(method: request.method, target: request.target, endpoint: route?.endpoint, body: body, status: response.status, refusal: refusal)
        state.withLock { $0.seen.append(seen) }
        return response
    }

    /// The first failure queued for `endpoint` (or, for an API call, one for any), removed from the queue.
    private func nextFailure(for endpoint: Endpoint?) -> Failure? {
        guard let endpoint else { return nil }
        return state.withLock { state in
            guard let index = state.failures.firstIndex(where: { $0.endpoint == endpoint || ($0.endpoint == nil && endpoint != .jwks && endpoint != .token) })
            else { return nil }
            return state.failures.remove(at: index)
        }
    }

    /// The Play Developer API's answer to an authenticated request.
    private func api(_ route: Route, _ request: HTTPRequest) -> HTTPResponse {
        switch route {
        case .subscription(let token):
            guard request.method == "GET" else { return Self.methodNotAllowed }
            guard let subscription = state.withLock({ $0.subscription(token) }) else { return Self.purchaseNotFound }
            return .json(200, subscription.json)
        case .product(let productId, let token):
            guard request.method == "GET" else { return Self.methodNotAllowed }
            guard let product = state.withLock({ $0.product(token) }), product.productId == productId else { return Self.purchaseNotFound }
            return .json(200, product.json)
        case .acknowledgeSubscription(let productId, let token):
            guard request.method == "POST" else { return Self.methodNotAllowed }
            return state.withLock { state in
                guard var subscription = state.subscription(token), subscription.lineItems.contains(where: { $0.productId == productId }) else {
                    return Self.purchaseNotFound
                }
                subscription.acknowledged = true
                state.set(token, subscription)
                return .json(200, Array("{}".utf8))
            }
        case .acknowledgeProduct(let productId, let token):
            guard request.method == "POST" else { return Self.methodNotAllowed }
            return state.withLock { state in
                guard var product = state.product(token), product.productId == productId else { return Self.purchaseNotFound }
                product.acknowledged = true
                state.set(token, product)
                return .json(200, Array("{}".utf8))
            }
        case .voidedPurchases:
            guard request.method == "GET" else { return Self.methodNotAllowed }
            return voidedPage(request)
        case .jwks, .token:
            return Self.purchaseNotFound
        }
    }

    /// One page of voided purchases voided at or after `startTime` (milliseconds, default 30
    /// days ago as Google's) and at or before `endTime` (default: now), `type=1` listing subscriptions too (0 or absent: one-time only),
    /// quantity-based partial refunds (`refundType` 2) only with `includeQuantityBasedPartialRefund=true`.
    private func voidedPage(_ request: HTTPRequest) -> HTTPResponse {
        guard request.query["type"] == nil || ["0", "1"].contains(request.query["type"]!) else {
            return Self.error(400, "INVALID_ARGUMENT", "Invalid type.")
        }
        let start = request.query["startTime"].map { Int64($0) } ?? 0
        guard let start else { return Self.error(400, "INVALID_ARGUMENT", "Invalid startTime.") }
        let end = request.query["endTime"].map { Int64($0) } ?? Int64.max
        guard let end else { return Self.error(400, "INVALID_ARGUMENT", "Invalid endTime.") }
        let includeSubscriptions = request.query["type"] == "1"
        let includePartialRefunds = request.query["includeQuantityBasedPartialRefund"] == "true"
        let (voided, pageSize, subscriptionTokens) = state.withLock { ($0.voided, $0.voidedPageSize, $0.subscriptions.map(\.token)) }
        let matching = voided.filter { purchase in
            purchase.voidedTimeMillis >= start && purchase.voidedTimeMillis <= end && (includePartialRefunds || purchase.refundType != 2)
                && (includeSubscriptions || !subscriptionTokens.contains { $0.utf8.elementsEqual(purchase.purchaseToken.utf8) })
        }
        let offset: Int
        if let page = request.query["token"] {
            guard page.hasPrefix("page-"), let number = Int(page.dropFirst(5)), number >= 0, number <= matching.count else {
                return Self.error(400, "INVALID_ARGUMENT", "Invalid page token.")
            }
            offset = number
        } else {
            offset = 0
        }
        let page = matching.dropFirst(offset).prefix(pageSize)
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("pageInfo")
        writer.beginObject()
        writer.field("totalResults", Int64(matching.count))
        writer.field("resultPerPage", Int64(pageSize))
        writer.field("startIndex", Int64(offset))
        writer.endObject()
        if offset + page.count < matching.count {
            writer.key("tokenPagination")
            writer.beginObject()
            writer.field("nextPageToken", "page-\(offset + page.count)")
            writer.endObject()
        }
        writer.array("voidedPurchases", Array(page)) { writer, purchase in purchase.write(&writer) }
        writer.endObject()
        return .json(200, writer.bytes)
    }

    static let purchaseNotFound = error(404, "NOT_FOUND", "The purchase token was not found.")
    static let methodNotAllowed = error(405, "METHOD_NOT_ALLOWED", "Method not allowed.")

    /// Google's error body: `{"error": {"code": …, "message": …, "status": …}}`.
    static func error(_ status: Int, _ word: String, _ message: String) -> HTTPResponse {
        .json(status, Array(#"{"error": {"code": \#(status), "message": "\#(message)", "status": "\#(word)"}}"#.utf8))
    }
}

extension FakeGooglePlay {
    /// What a request's path names.
    enum Route {
        case jwks, token
        case subscription(token: String)
        case product(productId: String, token: String)
        case acknowledgeSubscription(productId: String, token: String)
        case acknowledgeProduct(productId: String, token: String)
        case voidedPurchases

        var endpoint: Endpoint {
            switch self {
            case .jwks: .jwks
            case .token: .token
            case .subscription: .subscription
            case .product: .product
            case .acknowledgeSubscription, .acknowledgeProduct: .acknowledge
            case .voidedPurchases: .voidedPurchases
            }
        }

        /// The route of `request`, nil for a path Google does not have (or another package's).
        /// Segments are split before they are percent-decoded: a token's encoded `:` is the
        /// token's, a raw one starts the `:acknowledge` verb.
        init?(_ request: HTTPRequest, packageName: String) {
            let path = request.target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0]
            var raw = path.split(separator: "/").map(String.init)
            var verb: String?
            if let last = raw.last, let colon = last.lastIndex(of: ":") {
                verb = String(last[last.index(after: colon)...])
                raw[raw.count - 1] = String(last[..<colon])
            }
            let segments = raw.map { $0.removingPercentEncoding ?? $0 }
            switch (verb, segments) {
            case (nil, ["oauth2", "v3", "certs"]): self = .jwks
            case (nil, ["token"]): self = .token
            case (_, let segments) where segments.count >= 6 && segments.prefix(3) == ["androidpublisher", "v3", "applications"] && segments[4] == "purchases":
                guard segments[3].utf8.elementsEqual(packageName.utf8) else { return nil }
                switch (verb, Array(segments.dropFirst(5))) {
                case (nil, let rest) where rest.count == 3 && rest[0] == "subscriptionsv2" && rest[1] == "tokens": self = .subscription(token: rest[2])
                case (nil, let rest) where rest.count == 4 && rest[0] == "products" && rest[2] == "tokens": self = .product(productId: rest[1], token: rest[3])
                case ("acknowledge", let rest) where rest.count == 4 && rest[0] == "subscriptions" && rest[2] == "tokens":
                    self = .acknowledgeSubscription(productId: rest[1], token: rest[3])
                case ("acknowledge", let rest) where rest.count == 4 && rest[0] == "products" && rest[2] == "tokens":
                    self = .acknowledgeProduct(productId: rest[1], token: rest[3])
                case (nil, ["voidedpurchases"]): self = .voidedPurchases
                default: return nil
                }
            default: return nil
            }
        }
    }
}
