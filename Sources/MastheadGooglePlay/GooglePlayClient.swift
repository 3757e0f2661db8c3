import Foundation
public import Masthead
public import MastheadAppStore

/// The Google Play Developer API, asked as the service account over ``HTTPSTransport``:
/// `purchases.subscriptionsv2.get`, `purchases.products.get`, the two `:acknowledge` calls and
/// `purchases.voidedpurchases.list`.
///
/// - Every request carries an access token from the OAuth 2.0 JWT-bearer grant
///   (``GoogleAccessTokens``): cached until 60 s before its expiry, one refresh at a time.
/// - A purchase token must be 1 to ``maxPurchaseTokenBytes`` of `A–Z a–z 0–9 . _ -`, and not
///   `.` or `..`: another is refused with ``GooglePlayError/invalidRequest(endpoint:reason:)``
///   before any request. The package name and product id are percent-encoded: only
///   `A–Z a–z 0–9 - . _` are written as they are (a segment of dots only is encoded too, so it
///   never reads as `.` or `..`); an empty one is not sent.
/// - HTTP 429, 5xx and network failures are retried, at most ``Retries/attempts`` tries in all,
///   waiting ``Retries/backoffMilliseconds`` doubled per try, or what `Retry-After` asks; no
///   wait is longer than ``Retries/maxWaitMilliseconds``, and a call ends by its deadline
///   (``Retries/deadlineMilliseconds``). A URL the transport cannot send is not retried.
/// - HTTP 401 drops the access token and tries once more with a new one; a second 401, or a
///   403, drops the token and fails with
///   ``GooglePlayError/notAuthorized(endpoint:status:account:detail:)`` naming the service
///   account (never a token); 404 or 410 with ``GooglePlayError/purchaseNotFound(endpoint:status:)``.
/// - An answer is bounded by the transport's ``HTTPSTransport/maxResponseBytes``.
///
/// Errors name endpoints as `purchases.subscriptionsv2.get (com.example.app)`: never with the
/// purchase token. Calls block their thread; safe to use from several threads.
public final class GooglePlayClient: Sendable {
    /// How patiently Google is asked.
    public struct Retries: Sendable, Hashable {
        /// Tries of one request on 429, 5xx and network failures.
        public var attempts = 4
        /// The first retry's wait; each next one twice as long.
        public var backoffMilliseconds = 500
        /// The longest wait before a retry: a longer `Retry-After` is cut to it.
        public var maxWaitMilliseconds = 30_000
        /// How long one call may take in all, its access token, tries and waits included: no
        /// exchange or wait goes past it.
        public var deadlineMilliseconds = 60_000

        /// The defaults.
        public init() {}
    }

    /// The service account the requests are made as.
    public let account: GoogleServiceAccount
    /// The Play Developer API's base URL (`googlePlayAPIURL`).
    public let apiURL: String
    /// The OAuth 2.0 token endpoint (`googlePlayTokenURL`).
    public let tokenURL: String
    /// Whether `http://` URLs are allowed (`googlePlayAllowHTTP`): for tests against a local fake only.
    public let allowHTTP: Bool
    /// How many tries and how long the waits.
    public let retries: Retries
    /// The longest purchase token sent (Google's are about 150 bytes).
    public static let maxPurchaseTokenBytes = 512
    let transport: HTTPSTransport
    let tokens: GoogleAccessTokens
    let sleep: @Sendable (Int) -> Void

    /// Creates a client. Nothing is sent until a call; a base URL that cannot be used fails every
    /// call with ``GooglePlayError/invalidBaseURL(setting:url:)`` (``checkURL(_:setting:allowHTTP:)``
    /// checks one beforehand).
    /// - Parameters:
    ///   - apiURL: the base of `/androidpublisher/v3/…` (`googlePlayAPIURL`).
    ///   - tokenURL: the token endpoint, also the assertions' `aud` (`googlePlayTokenURL`).
    ///   - allowHTTP: whether `http://` URLs are allowed: for tests against a local fake only.
    ///   - clock: the time, for the assertions' `iat` and `exp` and the access token's expiry.
    ///   - retries: how many tries and how long the waits.
    ///   - sleep: waits the given milliseconds before a retry (default: the thread sleeps).
    public init(
        account: GoogleServiceAccount, apiURL: String, tokenURL: String, allowHTTP: Bool, transport: HTTPSTransport,
        clock: @escaping @Sendable () -> Instant, retries: Retries = Retries(), sleep: (@Sendable (Int) -> Void)? = nil
    ) {
        self.account = account
        self.apiURL = apiURL.hasSuffix("/") ? String(apiURL.dropLast()) : apiURL
        self.tokenURL = tokenURL
        self.allowHTTP = allowHTTP
        self.retries = retries
        self.transport = transport
        let sleep = sleep ?? { Thread.sleep(forTimeInterval: Double($0) / 1000) }
        self.sleep = sleep
        tokens = GoogleAccessTokens(
            account: account, tokenURL: tokenURL, allowHTTP: allowHTTP, transport: transport, clock: clock, retries: retries, sleep: sleep)
    }

    /// Checks that `url` can be used as `setting`: an absolute https URL, or http when `allowHTTP`.
    /// - Throws: ``GooglePlayError/invalidBaseURL(setting:url:)``.
    public static func checkURL(_ url: String, setting: String, allowHTTP: Bool) throws(GooglePlayError) {
        let lowered = url.lowercased()
        guard HTTPSTransport.accepts(url: url), lowered.hasPrefix("https://") || (allowHTTP && lowered.hasPrefix("http://")) else {
            throw .invalidBaseURL(setting: setting, url: url)
        }
    }

    // MARK: Endpoints

    /// `purchases.subscriptionsv2.get`: GET
    /// `…/applications/{packageName}/purchases/subscriptionsv2/tokens/{token}`; the JSON body as sent.
    public func subscription(packageName: String, token: String) throws(GooglePlayError) -> [UInt8] {
        let name = "purchases.subscriptionsv2.get (\(packageName))"
        let path = try applicationPath(packageName, name) + "/purchases/subscriptionsv2/tokens/" + Self.purchaseToken(token, name)
        return try send(method: "GET", path: path, endpoint: name)
    }

    /// `purchases.products.get`: GET
    /// `…/applications/{packageName}/purchases/products/{productId}/tokens/{token}`; the JSON body as sent.
    public func product(packageName: String, productId: String, token: String) throws(GooglePlayError) -> [UInt8] {
        let name = "purchases.products.get (\(packageName), \(productId))"
        let path = try applicationPath(packageName, name) + "/purchases/products/" + Self.segment(productId, name) + "/tokens/" + Self.purchaseToken(token, name)
        return try send(method: "GET", path: path, endpoint: name)
    }

    /// `purchases.subscriptions.acknowledge`: POST
    /// `…/applications/{packageName}/purchases/subscriptions/{productId}/tokens/{token}:acknowledge`,
    /// with an empty body.
    public func acknowledgeSubscription(packageName: String, productId: String, token: String) throws(GooglePlayError) {
        let name = "purchases.subscriptions.acknowledge (\(packageName), \(productId))"
        let path =
            try applicationPath(packageName, name) + "/purchases/subscriptions/" + Self.segment(productId, name) + "/tokens/"
            + Self.purchaseToken(token, name) + ":acknowledge"
        _ = try send(method: "POST", path: path, endpoint: name)
    }

    /// `purchases.products.acknowledge`: POST
    /// `…/applications/{packageName}/purchases/products/{productId}/tokens/{token}:acknowledge`,
    /// with an empty body.
    public func acknowledgeProduct(packageName: String, productId: String, token: String) throws(GooglePlayError) {
        let name = "purchases.products.acknowledge (\(packageName), \(productId))"
        let path =
            try applicationPath(packageName, name) + "/purchases/products/" + Self.segment(productId, name) + "/tokens/"
            + Self.purchaseToken(token, name) + ":acknowledge"
        _ = try send(method: "POST", path: path, endpoint: name)
    }

    /// `purchases.voidedpurchases.list`: GET
    /// `…/applications/{packageName}/purchases/voidedpurchases?startTime=…[&endTime=…]&type=1[&token=…]`
    /// (`startTime` and `endTime` in milliseconds, `endTime` now when nil; `type=1` includes
    /// voided subscription purchases; `includeQuantityBasedPartialRefund=true` when
    /// `partialRefunds`): one page, the JSON body as sent (its `tokenPagination.nextPageToken` is
    /// the next page's `pageToken`).
    public func voidedPurchases(
        packageName: String, startTime: Instant, endTime: Instant? = nil, partialRefunds: Bool = false, pageToken: String?
    ) throws(GooglePlayError) -> [UInt8] {
        let name = "purchases.voidedpurchases.list (\(packageName))"
        var path = try applicationPath(packageName, name) + "/purchases/voidedpurchases?startTime=\(startTime.milliseconds)"
        if let endTime { path += "&endTime=\(endTime.milliseconds)" }
        path += "&type=1"
        if partialRefunds { path += "&includeQuantityBasedPartialRefund=true" }
        if let pageToken {
            guard !pageToken.isEmpty else { throw .invalidRequest(endpoint: name, reason: "the page token is empty") }
            path += "&token=" + Self.encoded(pageToken)
        }
        return try send(method: "GET", path: path, endpoint: name)
    }

    // MARK: Paths

    /// `/androidpublisher/v3/applications/{packageName}`.
    private func applicationPath(_ packageName: String, _ endpoint: String) throws(GooglePlayError) -> String {
        "/androidpublisher/v3/applications/" + (try Self.segment(packageName, endpoint))
    }

    /// A purchase token as its path segment: 1 to ``maxPurchaseTokenBytes`` of `A–Z a–z 0–9 . _ -`,
    /// not `.` or `..`.
    /// - Throws: ``GooglePlayError/invalidRequest(endpoint:reason:)`` naming the purchase token
    ///   (never quoting it).
    static func purchaseToken(_ token: String, _ endpoint: String) throws(GooglePlayError) -> String {
        let bytes = token.utf8
        guard (1...maxPurchaseTokenBytes).contains(bytes.count) else {
            throw .invalidRequest(endpoint: endpoint, reason: "the purchase token is \(bytes.count) bytes; it must be 1 to \(maxPurchaseTokenBytes)")
        }
        let allowed = bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"):
                true
            default: false
            }
        }
        guard allowed else { throw .invalidRequest(endpoint: endpoint, reason: "the purchase token holds a character other than A-Z a-z 0-9 . _ -") }
        guard token.utf8.count > 2 || !token.utf8.allSatisfy({ $0 == UInt8(ascii: ".") }) else {
            throw .invalidRequest(endpoint: endpoint, reason: "the purchase token is a dot segment (\".\" or \"..\")")
        }
        return token
    }

    /// A path segment, percent-encoded; a segment of dots only has its dots encoded.
    /// - Throws: ``GooglePlayError/invalidRequest(endpoint:reason:)`` for an empty segment.
    static func segment(_ text: String, _ endpoint: String) throws(GooglePlayError) -> String {
        guard !text.isEmpty else { throw .invalidRequest(endpoint: endpoint, reason: "an empty path segment (package name, product id or token)") }
        if text.utf8.allSatisfy({ $0 == UInt8(ascii: ".") }) { return String(repeating: "%2E", count: text.utf8.count) }
        return encoded(text)
    }

    private static let hexDigits = Array("0123456789ABCDEF".unicodeScalars)

    /// `text` with every byte but `A–Z a–z 0–9 - . _` written as `%XX`.
    static func encoded(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                result.unicodeScalars.append("%")
                result.unicodeScalars.append(hexDigits[Int(byte >> 4)])
                result.unicodeScalars.append(hexDigits[Int(byte & 15)])
            }
        }
        return result
    }
}
