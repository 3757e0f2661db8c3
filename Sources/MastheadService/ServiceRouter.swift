import Masthead
import MastheadFormats
public import MastheadHTTP
import MastheadJSON
import MastheadStorage

/// Routes HTTP requests to the service and renders its answers as JSON.
///
/// | method | path | auth |
/// |---|---|---|
/// | GET | `/health` | none |
/// | GET | `/openapi.json` | none |
/// | GET | `/metrics` | API token |
/// | POST | `/v1/notifications/app-store` | shared secret in the body |
/// | POST | `/v1/users/{userId}/receipts` | API token |
/// | GET | `/v1/users/{userId}/entitlements?publication=&at=&environment=` | API token |
/// | GET | `/v1/users/{userId}/issues/{publication}/{issueId}?at=&environment=` | API token |
/// | GET | `/v1/publications/{id}/issues` | API token |
/// | PUT | `/v1/publications/{id}/issues/{issueId}` | admin token |
/// | GET | `/v1/refresh-due?within=3d` | API token |
///
/// HEAD is answered on every GET route as GET would be; the server sends only the answer's head.
public struct ServiceRouter: Sendable {
    public let service: EntitlementService

    /// Creates a router for a service.
    public init(service: EntitlementService) { self.service = service }

    /// The handler to give ``HTTPServer``.
    public var handler: HTTPServer.Handler {
        let router = self
        return { request, responder in router.handle(request) { responder.send($0) } }
    }

    /// The check to give ``HTTPServer`` for requests sent with `Expect: 100-continue`: the token
    /// check of ``handle(_:reply:)``, so that a refused body is never sent. `/health` and
    /// `/openapi.json` need no token and a notification carries its password in the body: all may send theirs.
    public var headCheck: HTTPServer.HeadCheck {
        let router = self
        return { head in
            let path = head.pathSegments
            if path == ["health"] || path == ["openapi.json"] || path == ["v1", "notifications", "app-store"] { return nil }
            return router.unauthorized(head)
        }
    }

    /// Answers one request; `reply` is called once, possibly from another thread (after a commit).
    public func handle(_ request: HTTPRequest, reply: @escaping @Sendable (HTTPResponse) -> Void) {
        let started = SystemClock.seconds()
        let route = ServiceRouter.routeName(request.pathSegments)
        let metrics = service.metrics
        let timed: @Sendable (HTTPResponse) -> Void = { response in
            metrics.record(route: route, status: response.status, seconds: SystemClock.seconds() - started)
            reply(response)
        }
        if request.method == "HEAD" {
            var get = request
            get.method = "GET"
            dispatch(get, reply: timed)
        } else {
            dispatch(request, reply: timed)
        }
    }

    private func dispatch(_ request: HTTPRequest, reply: @escaping @Sendable (HTTPResponse) -> Void) {
        let path = request.pathSegments
        switch (request.method, path.count, path.first) {
        case ("GET", 1, "health"):
            return reply(health())
        case ("GET", 1, "openapi.json"):
            return reply(.json(200, ServiceRouter.openAPIBody))
        case (_, 3, "v1") where path[1] == "notifications" && path[2] == "app-store":
            guard request.method == "POST" else { return reply(methodNotAllowed("POST")) }
            return postNotification(request, reply: reply)
        default:
            break
        }
        if let refusal = unauthorized(request) { return reply(refusal) }
        switch path.count {
        case 1 where path[0] == "metrics":
            guard request.method == "GET" else { return reply(methodNotAllowed("GET")) }
            return reply(HTTPResponse(status: 200, headers: [("Content-Type", "text/plain; version=0.0.4")], body: Array(service.metrics.rendered().utf8)))
        case 2 where path[0] == "v1" && path[1] == "refresh-due":
            guard request.method == "GET" else { return reply(methodNotAllowed("GET")) }
            return reply(refreshDue(request))
        case 4 where path[0] == "v1" && path[1] == "users" && path[3] == "receipts":
            guard request.method == "POST" else { return reply(methodNotAllowed("POST")) }
            if let invalid = PathIdentifier.user.problem(in: request, at: 2) { return reply(invalid) }
            return postReceipt(request, userId: path[2], reply: reply)
        case 4 where path[0] == "v1" && path[1] == "users" && path[3] == "entitlements":
            guard request.method == "GET" else { return reply(methodNotAllowed("GET")) }
            if let invalid = PathIdentifier.user.problem(in: request, at: 2) { return reply(invalid) }
            return reply(entitlements(request, userId: path[2]))
        case 6 where path[0] == "v1" && path[1] == "users" && path[3] == "issues":
            guard request.method == "GET" else { return reply(methodNotAllowed("GET")) }
            if let invalid = PathIdentifier.user.problem(in: request, at: 2) ?? PathIdentifier.publication.problem(in: request, at: 4)
                ?? PathIdentifier.issue.problem(in: request, at: 5)
            {
                return reply(invalid)
            }
            return reply(issueCheck(request, userId: path[2], publicationId: path[4], issueId: path[5]))
        case 4 where path[0] == "v1" && path[1] == "publications" && path[3] == "issues":
            guard request.method == "GET" else { return reply(methodNotAllowed("GET")) }
            if let invalid = PathIdentifier.publication.problem(in: request, at: 2) { return reply(invalid) }
            return reply(listIssues(publicationId: path[2]))
        case 5 where path[0] == "v1" && path[1] == "publications" && path[3] == "issues":
            guard request.method == "PUT" else { return reply(methodNotAllowed("PUT")) }
            guard authorized(request, token: service.configuration.adminToken) else {
                return reply(.error(403, code: "forbidden", message: "publishing issues needs the admin token"))
            }
            if let invalid = PathIdentifier.publication.problem(in: request, at: 2) ?? PathIdentifier.issue.problem(in: request, at: 4) {
                return reply(invalid)
            }
            return publishIssue(request, publicationId: path[2], issueId: path[4], reply: reply)
        default:
            return reply(.error(404, code: "not_found", message: "no route for \(request.method) \(request.target.split(separator: "?").first ?? "")"))
        }
    }

    // MARK: Handlers

    /// The body of `GET /openapi.json`, built once.
    private static let openAPIBody = Array(OpenAPIDocument.json.utf8)

    /// `{"status":"ok"}`, or 503 `{"status":"degraded","database":…}` while the last write failed.
    private func health() -> HTTPResponse {
        guard let problem = service.writeProblem else { return .json(200, Array(#"{"status":"ok"}"#.utf8)) }
        var writer = JSONWriter(capacity: 256)
        writer.beginObject()
        writer.field("status", "degraded")
        writer.field("database", "the last write failed: \(problem)")
        writer.endObject()
        return .json(503, writer.bytes)
    }

    private func postReceipt(_ request: HTTPRequest, userId: String, reply: @escaping @Sendable (HTTPResponse) -> Void) {
        let document: JSONDocument
        do { document = try JSONDocument(parsing: request.body) } catch {
            return reply(.error(400, code: "invalid_json", message: error.description))
        }
        let receipt: Receipt
        do { receipt = try ReceiptDecoder(catalog: service.catalog).decode(document.root, path: "$") } catch {
            if case .receiptRejected = error { return reply(.error(422, code: "receipt_rejected", message: error.description)) }
            return reply(.error(400, code: "invalid_receipt", message: error.description))
        }
        let latest = document.root.member("latest_receipt")?.string
        let at = service.clock()
        let catalog = service.catalog
        service.postReceipt(userId: userId, receipt: receipt, latestReceipt: latest) { outcome in
            switch outcome {
            case .stored(let history):
                let answer = EntitlementEngine(catalog: catalog).evaluate(history, at: at, environment: receipt.environment)
                var writer = JSONWriter(capacity: 4096)
                EntitlementJSON.write(answer, userId: userId, into: &writer)
                reply(.json(200, writer.bytes))
            case .storedUnread(let error):
                // Committed: say so, and that the entitlements could not be read back (not a 503, which would mean "not stored").
                var writer = JSONWriter(capacity: 256)
                writer.beginObject()
                writer.field("user_id", userId)
                writer.field("stored", true)
                writer.field("entitlements_unavailable", "the receipt is stored; reading the entitlements back failed: \(error)")
                writer.endObject()
                reply(.json(200, writer.bytes))
            case .failed(StorageError.receiptAlreadyInUse(let environment, let original, _)):
                reply(.error(409, code: "receipt_already_in_use", message: "subscription \(original) (\(environment)) is linked to another user"))
            case .failed(let error):
                reply(.error(503, code: "store_unavailable", message: "the receipt could not be stored: \(error)"))
            }
        }
    }

    private func postNotification(_ request: HTTPRequest, reply: @escaping @Sendable (HTTPResponse) -> Void) {
        let document: JSONDocument
        do { document = try JSONDocument(parsing: request.body) } catch {
            return reply(.error(400, code: "invalid_json", message: error.description))
        }
        let password = document.root.member("password")?.string ?? ""
        guard ServiceRouter.constantTimeEqual(password, service.configuration.sharedSecret) else {
            return reply(.error(401, code: "unauthorized", message: "the notification password does not match the shared secret"))
        }
        let type = document.root.member("notification_type")?.string ?? "UNKNOWN"
        // A notification that cannot be read is still kept (raw body) and acknowledged: Apple's
        // retries would carry the same body. The answer says it was not applied.
        var decodeError: FormatError?
        let notification: AppStoreNotification?
        do { notification = try NotificationDecoder(catalog: service.catalog).decode(document.root) } catch {
            decodeError = error
            notification = nil
        }
        service.postNotification(notification, type: type, body: request.body) { [decodeError] result in
            switch result {
            case .success:
                var writer = JSONWriter(capacity: 128)
                writer.beginObject()
                writer.field("stored", true)
                writer.field("applied", decodeError == nil)
                if let decodeError { writer.field("error", decodeError.description) }
                writer.endObject()
                reply(.json(200, writer.bytes))
            case .failure(let error):
                reply(.error(503, code: "store_unavailable", message: "the notification could not be stored: \(error)"))
            }
        }
    }

    private func entitlements(_ request: HTTPRequest, userId: String) -> HTTPResponse {
        let query: (at: Instant, environment: Environment)
        switch asOf(request) {
        case .success(let value): query = value
        case .failure(let error): return error.response
        }
        let history: PurchaseHistory?
        do { history = try service.history(forUser: userId) } catch {
            return .error(503, code: "store_unavailable", message: "\(error)")
        }
        guard let history else { return .error(404, code: "unknown_user", message: "no receipt has been posted for user \(userId)") }
        let catalog = service.catalog
        let engine = EntitlementEngine(catalog: catalog)
        var answer = engine.evaluate(history, at: query.at, environment: query.environment)
        if let publicationId = request.query["publication"] {
            guard let publication = catalog.publication(publicationId) else {
                return .error(404, code: "unknown_publication", message: "the catalog has no publication \(publicationId)")
            }
            answer.publications = [engine.evaluate(history, publication: publication, at: query.at, environment: query.environment)]
        }
        var writer = JSONWriter(capacity: 4096)
        EntitlementJSON.write(answer, userId: userId, into: &writer)
        return .json(200, writer.bytes)
    }

    /// The download check: the hot path.
    private func issueCheck(_ request: HTTPRequest, userId: String, publicationId: String, issueId: String) -> HTTPResponse {
        let query: (at: Instant, environment: Environment)
        switch asOf(request) {
        case .success(let value): query = value
        case .failure(let error): return error.response
        }
        let body: [UInt8]?
        do {
            body = try service.checkBody(forUser: userId, publicationId: publicationId, issueId: issueId, at: query.at, environment: query.environment) { entitlement in
                guard let index = entitlement.publication.index(ofIssue: issueId), let access = entitlement.access(toIssue: issueId) else { return nil }
                var writer = JSONWriter(capacity: 512)
                let at = EntitlementJSON.writeCheck(entitlement.publication.issues[index], access, entitlement, userId: userId, into: &writer)
                return (writer.bytes, at)
            }
        } catch {
            return .error(503, code: "store_unavailable", message: "\(error)")
        }
        guard let body else {
            guard service.catalog.publication(publicationId) != nil else {
                return .error(404, code: "unknown_publication", message: "the catalog has no publication \(publicationId)")
            }
            return .error(404, code: "unknown_issue", message: "publication \(publicationId) has no issue \(issueId)")
        }
        return .json(200, body)
    }

    private func listIssues(publicationId: String) -> HTTPResponse {
        guard let publication = service.catalog.publication(publicationId) else {
            return .error(404, code: "unknown_publication", message: "the catalog has no publication \(publicationId)")
        }
        var writer = JSONWriter(capacity: 2048)
        writer.beginObject()
        writer.field("publication", publication.id)
        writer.field("title", publication.title)
        writer.key("issues")
        writer.beginArray()
        for issue in publication.issues { EntitlementJSON.write(issue, into: &writer) }
        writer.endArray()
        writer.endObject()
        return .json(200, writer.bytes)
    }

    private func publishIssue(_ request: HTTPRequest, publicationId: String, issueId: String, reply: @escaping @Sendable (HTTPResponse) -> Void) {
        guard service.catalog.publication(publicationId) != nil else {
            return reply(.error(404, code: "unknown_publication", message: "the catalog has no publication \(publicationId)"))
        }
        let root: JSONValue
        do { root = try JSONDocument(parsing: request.body).root } catch {
            return reply(.error(400, code: "invalid_json", message: error.description))
        }
        guard root.kind == .object, let published = root["published"]?.string.flatMap(DateText.rfc3339) else {
            return reply(.error(400, code: "invalid_issue", message: "expected {\"published\": RFC 3339 instant, \"title\": optional string, \"free\": optional boolean}"))
        }
        if let free = root["free"], !free.isNull, free.bool == nil {
            return reply(.error(400, code: "invalid_issue", message: "free must be true or false"))
        }
        let issue = Issue(id: issueId, title: root["title"]?.string, published: published, isFree: root["free"]?.bool ?? false)
        service.publish(issue, in: publicationId) { result in
            switch result {
            case .success:
                var writer = JSONWriter(capacity: 256)
                EntitlementJSON.write(issue, into: &writer)
                reply(.json(200, writer.bytes))
            case .failure(let error):
                reply(.error(503, code: "store_unavailable", message: "the issue could not be stored: \(error)"))
            }
        }
    }

    private func refreshDue(_ request: HTTPRequest) -> HTTPResponse {
        guard let window = ServiceConfiguration.milliseconds(fromDuration: request.query["within"] ?? "3d") else {
            return .error(400, code: "invalid_window", message: "within must be a number followed by d, h, m or s, such as 3d")
        }
        let due: [RefreshDue]
        do { due = try service.refreshDue(within: window) } catch {
            return .error(503, code: "store_unavailable", message: "\(error)")
        }
        var writer = JSONWriter(capacity: 1024)
        writer.beginObject()
        writer.key("subscriptions")
        writer.beginArray()
        for entry in due {
            writer.beginObject()
            writer.field("environment", entry.environment.rawValue)
            writer.field("originalTransactionId", entry.originalTransactionId)
            writer.field("userId", entry.userId)
            writer.field("expires", entry.expires.description)
            writer.field("latestReceipt", entry.latestReceipt)
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return .json(200, writer.bytes)
    }

    // MARK: Helpers

    private func asOf(_ request: HTTPRequest) -> Result<(at: Instant, environment: Environment), ErrorResponse> {
        var at = service.clock()
        if let text = request.query["at"] {
            guard let instant = DateText.rfc3339(text) else {
                return .failure(ErrorResponse(.error(400, code: "invalid_at", message: "at must be an RFC 3339 instant such as 2020-07-02T00:00:00Z")))
            }
            at = instant
        }
        var environment = Environment.production
        if let text = request.query["environment"] {
            guard let value = Environment(rawValue: text) else {
                return .failure(ErrorResponse(.error(400, code: "invalid_environment", message: "environment must be production or sandbox")))
            }
            environment = value
        }
        return .success((at, environment))
    }

    /// The 401 answer for a request without the API token (or, for PUT, the admin token); nil when it has one.
    private func unauthorized(_ request: HTTPRequest) -> HTTPResponse? {
        if authorized(request, token: service.configuration.apiToken) || (request.method == "PUT" && authorized(request, token: service.configuration.adminToken)) {
            return nil
        }
        return .error(401, code: "unauthorized", message: "a valid Authorization: Bearer token is required")
    }

    /// Whether the request sends `Authorization: Bearer <token>`: the scheme in any case
    /// (RFC 9110 §11.1), the token after one or more spaces, compared in constant time.
    private func authorized(_ request: HTTPRequest, token: String) -> Bool {
        guard var header = request.header("authorization") else { return false }
        return header.withUTF8 { bytes in
            let scheme: StaticString = "bearer"
            let length = scheme.utf8CodeUnitCount
            guard bytes.count > length, bytes[length] == UInt8(ascii: " ") else { return false }
            // Setting bit 5 lowercases a letter; no other byte becomes a letter of "bearer".
            for index in 0..<length where bytes[index] | 0x20 != scheme.utf8Start[index] { return false }
            var start = length
            while start < bytes.count && bytes[start] == UInt8(ascii: " ") { start += 1 }
            return ServiceRouter.constantTimeEqual(UnsafeBufferPointer(rebasing: bytes[start...]), token)
        }
    }

    private func methodNotAllowed(_ allowed: String) -> HTTPResponse {
        var response = HTTPResponse.error(405, code: "method_not_allowed", message: "use \(allowed)")
        response.headers.append(("Allow", allowed == "GET" ? "GET, HEAD" : allowed))
        return response
    }

    /// Compares secrets in time that depends only on their lengths.
    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        var a = a
        return a.withUTF8 { constantTimeEqual($0, b) }
    }

    /// Compares a secret's bytes with a secret in time that depends only on their lengths.
    static func constantTimeEqual(_ left: UnsafeBufferPointer<UInt8>, _ b: String) -> Bool {
        var b = b
        return b.withUTF8 { right in
            var difference = UInt8(truncatingIfNeeded: left.count ^ right.count)
            for index in 0..<max(left.count, right.count) {
                difference |= (index < left.count ? left[index] : 0) ^ (index < right.count ? right[index] : 0)
            }
            return difference == 0 && left.count == right.count
        }
    }

    static func routeName(_ path: [String]) -> String {
        switch (path.count, path.first) {
        case (1, "health"): "health"
        case (1, "metrics"): "metrics"
        case (1, "openapi.json"): "openapi"
        case (3, "v1") where path[1] == "notifications": "notifications"
        case (2, "v1") where path[1] == "refresh-due": "refresh_due"
        case (4, "v1") where path[1] == "users" && path[3] == "receipts": "receipts"
        case (4, "v1") where path[1] == "users" && path[3] == "entitlements": "entitlements"
        case (6, "v1") where path[1] == "users": "issue_check"
        case (4, "v1") where path[1] == "publications": "publication_issues"
        case (5, "v1") where path[1] == "publications": "publish_issue"
        default: "other"
        }
    }
}

/// An error answer carried through a `Result`.
struct ErrorResponse: Error {
    let response: HTTPResponse
    init(_ response: HTTPResponse) { self.response = response }
}
