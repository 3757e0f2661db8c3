import Masthead
import MastheadClock
import MastheadFormats
public import MastheadHTTP
import MastheadJSON
import MastheadStorage

/// Routes HTTP requests to the service through one table, ``routes``, and renders its answers as JSON.
///
/// The table says for each route its methods, path template, who may call it, its metrics label
/// and its handler; it drives dispatch, the `Expect: 100-continue` check, the metrics and the
/// test that holds the OpenAPI document to the router. The API token is checked before the path
/// is looked up (without it, an unknown path is 401 too), except on routes that need none. Errors
/// are ``ServiceFailure``s, which render themselves. HEAD is answered on every GET route as GET would
/// be; the server sends only the answer's head.
public struct ServiceRouter: Sendable {
    public let service: EntitlementService
    /// Runs restores, which ask Apple, off the event loops.
    let restorer: Restorer
    /// Where each answered request is logged, when the `accessLog` setting is given.
    let accessLog: AccessLog?
    /// What the HTTP server serving the router counts, shown in `/metrics`: give it to ``HTTPServer``.
    public let httpCounters = HTTPServerCounters()

    /// Creates a router for a service, logging each answered request to `accessLog` when given.
    public init(service: EntitlementService, accessLog: AccessLog? = nil) {
        self.service = service
        self.accessLog = accessLog
        restorer = Restorer(service: service)
    }

    /// The routes, in the OpenAPI document's order.
    static let routes: [Route] = [
        Route(["GET"], "/health", .open, label: "health", .immediate { router, _, _ in router.health() }),
        Route(["GET"], "/openapi.json", .open, label: "openapi", .immediate { _, _, _ in .json(200, ServiceRouter.openAPIBody) }),
        Route(["GET"], "/metrics", .apiToken, label: "metrics", .immediate { router, _, _ in router.metrics() }),
        Route(
            ["POST"], "/v1/notifications/app-store", .sharedSecretInBody, label: "notifications",
            .deferred { router, request, _, reply in router.postNotification(request, reply: reply) }),
        Route(
            ["GET"], "/v1/notifications/rejected", .adminToken, label: "rejected_notifications",
            .immediate { router, request, _ throws(AnyServiceFailure) in try router.rejectedNotifications(request) }),
        Route(
            ["POST"], "/v1/users/{userId}/receipts", .apiToken, label: "receipts",
            .deferred { router, request, ids, reply in router.postReceipt(request, userId: ids[.user], reply: reply) }),
        Route(
            ["POST"], "/v1/users/{userId}/transactions", .apiToken, label: "transactions",
            .deferred { router, request, ids, reply in router.postTransactions(request, userId: ids[.user], reply: reply) }),
        Route(
            ["POST"], "/v1/users/{userId}/restore", .apiToken, label: "restore",
            .deferred { router, request, ids, reply in router.restore(request, userId: ids[.user], reply: reply) }),
        Route(
            ["GET"], "/v1/users/{userId}/entitlements", .apiToken, label: "entitlements",
            .immediate { router, request, ids throws(AnyServiceFailure) in try router.entitlements(request, userId: ids[.user]) }),
        Route(
            ["GET"], "/v1/users/{userId}/issues/{publicationId}/{issueId}", .apiToken, label: "issue_check",
            .immediate { router, request, ids throws(AnyServiceFailure) in
                try router.issueCheck(request, userId: ids[.user], publicationId: ids[.publication], issueId: ids[.issue])
            }),
        Route(
            ["GET"], "/v1/users/{userId}/app-account-tokens", .apiToken, label: "app_account_tokens",
            .immediate { router, _, ids throws(AnyServiceFailure) in try router.appAccountTokens(userId: ids[.user]) }),
        Route(
            ["PUT", "DELETE"], "/v1/users/{userId}/app-account-tokens/{appAccountToken}", .apiToken, label: "app_account_token",
            .deferred { router, request, ids, reply in
                router.changeAppAccountToken(request, userId: ids[.user], token: ids[.appAccountToken], reply: reply)
            }),
        Route(
            ["GET"], "/v1/publications/{publicationId}/issues", .apiToken, label: "publication_issues",
            .immediate { router, _, ids throws(AnyServiceFailure) in try router.listIssues(publicationId: ids[.publication]) }),
        Route(
            ["PUT"], "/v1/publications/{publicationId}/issues/{issueId}", .adminToken, label: "publish_issue",
            .deferred { router, request, ids, reply in
                router.publishIssue(request, publicationId: ids[.publication], issueId: ids[.issue], reply: reply)
            }),
        Route(
            ["GET"], "/v1/refresh-due", .apiToken, label: "refresh_due",
            .immediate { router, request, _ throws(AnyServiceFailure) in try router.refreshDue(request) }),
    ]

    /// The route whose template fits the decoded path, whatever the method.
    static func route(for path: [String]) -> Route? {
        for route in routes where route.matches(path) { return route }
        return nil
    }

    /// The handler to give ``HTTPServer``.
    public var handler: HTTPServer.Handler {
        let router = self
        return { request, responder in
            switch router.dispatch(request) {
            case .answer(let response): responder.send(response)
            // The closure the answer comes back through is made only here, for a request answered
            // later: one allocation a download check does without.
            case .later(let later): router.answerLater(later, request) { responder.send($0) }
            }
        }
    }

    /// The check to give ``HTTPServer`` for requests whose body has not all arrived (or that are
    /// sent with `Expect: 100-continue`): every check of ``handle(_:reply:)`` that needs no body
    /// (the token, the route, the method, the admin token, the path's ids), so that a refused body
    /// is never read (401, 403, 404, 405, 400). Requests to a route that needs no token (see
    /// ``Route/Access``) may send theirs. A refusal is counted in the metrics as its answer would be.
    public var headCheck: HTTPServer.HeadCheck {
        let router = self
        return { head in
            let started = SystemClock.seconds()
            let route = ServiceRouter.route(for: head.pathSegments)
            do throws(ServiceError) { _ = try router.admit(head, method: head.method == "HEAD" ? "GET" : head.method, to: route) } catch {
                let answer = error.response
                router.service.metrics.record(route: route?.label ?? "other", status: answer.status, seconds: SystemClock.seconds() - started)
                return answer
            }
            return nil
        }
    }

    /// The answers to give ``HTTPServer`` for the HTTP layer's errors: the service's error shape.
    public var errorResponse: HTTPServer.ErrorResponse {
        { error in ServiceError.http(error).response }
    }

    /// Answers one request; `reply` is called once, possibly from another thread (after a commit).
    public func handle(_ request: HTTPRequest, reply: @escaping @Sendable (HTTPResponse) -> Void) {
        switch dispatch(request) {
        case .answer(let response): reply(response)
        case .later(let later): answerLater(later, request, reply: reply)
        }
    }

    /// What dispatching a request comes to.
    private enum Dispatch {
        /// The answer, counted in the metrics.
        case answer(HTTPResponse)
        /// A route's handler that answers later (after a commit).
        case later(Later)
    }

    /// A handler that answers later, with what counting its answer needs.
    private struct Later {
        let handler: Route.DeferredHandler
        let ids: PathParameters
        let route: Route
        let started: Double
    }

    /// Routes a request: answers it, or says which handler will.
    private func dispatch(_ request: HTTPRequest) -> Dispatch {
        let started = SystemClock.seconds()
        let route = ServiceRouter.route(for: request.pathSegments)
        let label = route?.label ?? "other"
        let answer: HTTPResponse
        do throws(AnyServiceFailure) {
            let admitted: Route
            do throws(ServiceError) { admitted = try admit(request, method: request.method == "HEAD" ? "GET" : request.method, to: route) } catch {
                throw AnyServiceFailure(error)
            }
            let ids = PathParameters(template: admitted.segments, path: request.pathSegments)
            switch admitted.handler {
            case .immediate(let handler): answer = try handler(self, request, ids)
            case .deferred(let handler): return .later(Later(handler: handler, ids: ids, route: admitted, started: started))
            }
        } catch {
            answer = error.failure.response
        }
        let seconds = SystemClock.seconds() - started
        service.metrics.record(route: label, status: answer.status, seconds: seconds)
        log(request, route: route, answer, seconds: seconds)
        return .answer(answer)
    }

    /// Runs a handler that answers later, counting its answer when it comes.
    private func answerLater(_ later: Later, _ request: HTTPRequest, reply: @escaping @Sendable (HTTPResponse) -> Void) {
        let metrics = service.metrics
        later.handler(self, request, later.ids) { [self] response in
            let seconds = SystemClock.seconds() - later.started
            metrics.record(route: later.route.label, status: response.status, seconds: seconds)
            log(request, route: later.route, response, seconds: seconds)
            reply(response)
        }
    }

    /// Writes the request's line to the access log, when there is one.
    private func log(_ request: HTTPRequest, route: Route?, _ response: HTTPResponse, seconds: Double) {
        guard let accessLog else { return }
        accessLog.record(
            method: request.method, path: ServiceRouter.loggedPath(request, route: route), status: response.status, bytes: response.body.count,
            microseconds: Int64((max(0, seconds) * 1_000_000).rounded()), at: SystemClock.now().description)
    }

    /// The request's path as the access log writes it: without the query, and with an app
    /// account token (a customer's purchase key) written as `{appAccountToken}`.
    static func loggedPath(_ request: HTTPRequest, route: Route?) -> String {
        if let route, route.segments.contains(.identifier(.appAccountToken)), route.segments.count == request.pathSegments.count {
            let segments = zip(route.segments, request.pathSegments).map { segment, text in
                segment == .identifier(.appAccountToken) ? "{appAccountToken}" : text
            }
            return "/" + segments.joined(separator: "/")
        }
        return String(request.target.prefix { $0 != "?" })
    }

    /// The route that answers the request once its credentials, method and ids pass, checked in
    /// the order the contract gives; HEAD is asked as GET.
    private func admit(_ request: HTTPRequest, method: String, to route: Route?) throws(ServiceError) -> Route {
        if let route, !route.access.needsToken {
            if route.allows(method) { return route }
            if route.access == .sharedSecretInBody { throw .methodNotAllowed(allowed: route.methods) }
        }
        if let refusal = unauthorized(request) { throw refusal }
        guard let route, route.access.needsToken else {
            throw .noRoute(method: method, path: String(request.target.split(separator: "?").first ?? ""))
        }
        guard route.allows(method) else { throw .methodNotAllowed(allowed: route.methods) }
        if route.access == .adminToken, !authorized(request, token: service.configuration.adminToken) { throw .adminTokenRequired }
        if let invalid = route.problem(in: request) { throw invalid }
        return route
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

    /// The Prometheus text of ``ServiceMetrics``.
    private func metrics() -> HTTPResponse {
        HTTPResponse(
            status: 200, headers: [("Content-Type", "text/plain; version=0.0.4")],
            body: Array(
                service.metrics.rendered(
                    cachedUsers: service.cachedUserCount, changeNotificationsUp: service.changeNotificationsUp, accessLogDropped: accessLog?.droppedLines,
                    http: httpCounters
                ).utf8))
    }

    private func postReceipt(_ request: HTTPRequest, userId: String, reply: @escaping @Sendable (HTTPResponse) -> Void) {
        let document: JSONDocument
        do { document = try JSONDocument(parsing: request.body) } catch {
            return reply(HintedFailure.hinted(ServiceError.invalidJSON(error), ServiceRouter.receiptBodyHint(body: request.body, root: nil)).response)
        }
        let receipt: Receipt
        do { receipt = try ReceiptDecoder(catalog: service.catalog).decode(document.root, path: "$") } catch {
            if case .receiptRejected = error { return reply(PurchaseError.receiptRejected(error).response) }
            return reply(HintedFailure.hinted(PurchaseError.invalidReceipt(error), ServiceRouter.receiptBodyHint(body: request.body, root: document.root)).response)
        }
        let latest = document.root.member("latest_receipt")?.string
        service.postReceipt(userId: userId, receipt: receipt, latestReceipt: latest, completion: purchasesAnswer(userId: userId, environment: receipt.environment, what: "receipt", reply: reply))
    }

    /// The answer to a posted receipt or signed transactions once committed (or refused): the
    /// user's entitlements now in `environment`.
    func purchasesAnswer(
        userId: String, environment: Environment, what: String, reply: @escaping @Sendable (HTTPResponse) -> Void
    ) -> @Sendable (EntitlementService.ReceiptOutcome) -> Void {
        let at = service.clock()
        let catalog = service.catalog
        return { outcome in
            switch outcome {
            case .stored(let history):
                let answer = EntitlementEngine(catalog: catalog).evaluate(history, at: at, environment: environment)
                var writer = JSONWriter(capacity: 4096)
                EntitlementJSON.write(answer, userId: userId, into: &writer)
                reply(.json(200, writer.bytes))
            case .storedUnread(let error):
                // Committed: say so, and that the entitlements could not be read back (not a 503, which would mean "not stored").
                var writer = JSONWriter(capacity: 256)
                writer.beginObject()
                writer.field("user_id", userId)
                writer.field("stored", true)
                writer.field("entitlements_unavailable", "the \(what) is stored; reading the entitlements back failed: \(error)")
                writer.endObject()
                reply(.json(200, writer.bytes))
            case .failed(StorageError.receiptAlreadyInUse(let environment, let original, _)):
                reply(PurchaseError.receiptAlreadyInUse(environment: environment, originalTransactionId: original).response)
            case .failed(PurchaseError.restoreTimedOut(let reason)):
                reply(PurchaseError.restoreTimedOut(reason).response)
            case .failed(let error):
                reply(ServiceError.notStored(what, error).response)
            }
        }
    }

    private func postNotification(_ request: HTTPRequest, reply: @escaping @Sendable (HTTPResponse) -> Void) {
        let document: JSONDocument
        do { document = try JSONDocument(parsing: request.body) } catch {
            return reply(ServiceError.invalidJSON(error).response)
        }
        // Version 2 (`{"signedPayload": …}`) is told apart by its shape, and verified instead of a password.
        let signed: SignedDataDocument?
        do { signed = try SignedDataDocument.read(document.root) } catch {
            return refuseNotification(NotificationError.notificationRefused(error), kind: .malformed, body: request.body, reply: reply)
        }
        if case .notification(let signedPayload)? = signed {
            return postSignedNotification(signedPayload, body: request.body, reply: reply)
        }
        let password = document.root.member("password")?.string ?? ""
        guard ServiceRouter.constantTimeEqual(password, service.configuration.sharedSecret) else {
            return reply(NotificationError.wrongSharedSecret.response)
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
        service.postNotification(notification, type: type, subtype: nil, uuid: nil, body: request.body, completion: notificationAnswer(decodeError: decodeError, reply: reply))
    }

    /// The answer to a notification once committed: `{"stored": true, "applied": …}`, with the
    /// reason when it could not be read, or `{"stored": false, "applied": false, "duplicate": true}`
    /// for a second delivery, which stores nothing.
    func notificationAnswer(
        decodeError: FormatError?, reply: @escaping @Sendable (HTTPResponse) -> Void
    ) -> @Sendable (Result<EntitlementService.NotificationOutcome, any Error>) -> Void {
        { result in
            switch result {
            case .success(let outcome):
                var writer = JSONWriter(capacity: 128)
                writer.beginObject()
                writer.field("stored", outcome == .stored)
                switch outcome {
                case .stored:
                    writer.field("applied", decodeError == nil)
                    if let decodeError { writer.field("error", decodeError.description) }
                case .alreadyStored:
                    writer.field("applied", false)
                    writer.field("duplicate", true)
                }
                writer.endObject()
                reply(.json(200, writer.bytes))
            case .failure(let error):
                reply(ServiceError.notStored("notification", error).response)
            }
        }
    }

    private func entitlements(_ request: HTTPRequest, userId: String) throws(AnyServiceFailure) -> HTTPResponse {
        let query = try asOf(request)
        let history: PurchaseHistory?
        do { history = try service.history(forUser: userId) } catch { throw AnyServiceFailure(ServiceError.storeUnavailable(error)) }
        guard let history else { throw AnyServiceFailure(ServiceError.unknownUser(userId)) }
        let catalog = service.catalog
        let engine = EntitlementEngine(catalog: catalog)
        var answer = engine.evaluate(history, at: query.at, environment: query.environment)
        if let publicationId = request.query["publication"] {
            guard let publication = catalog.publication(publicationId) else { throw AnyServiceFailure(ServiceError.unknownPublication(publicationId)) }
            answer.publications = [engine.evaluate(history, publication: publication, at: query.at, environment: query.environment)]
        }
        var writer = JSONWriter(capacity: 4096)
        EntitlementJSON.write(answer, userId: userId, into: &writer)
        return .json(200, writer.bytes)
    }

    /// The download check: the hot path.
    private func issueCheck(_ request: HTTPRequest, userId: String, publicationId: String, issueId: String) throws(AnyServiceFailure) -> HTTPResponse {
        let query = try asOf(request)
        let body: [UInt8]?
        do {
            body = try service.checkBody(forUser: userId, publicationId: publicationId, issueId: issueId, at: query.at, environment: query.environment) { entitlement in
                guard let index = entitlement.publication.index(ofIssue: issueId), let access = entitlement.access(toIssue: issueId) else { return nil }
                var writer = JSONWriter(capacity: 512)
                let at = EntitlementJSON.writeCheck(entitlement.publication.issues[index], access, entitlement, userId: userId, into: &writer)
                return (writer.bytes, at)
            }
        } catch {
            throw AnyServiceFailure(ServiceError.storeUnavailable(error))
        }
        guard let body else {
            guard service.catalog.publication(publicationId) != nil else { throw AnyServiceFailure(ServiceError.unknownPublication(publicationId)) }
            throw AnyServiceFailure(EntitlementError.unknownIssue(publicationId: publicationId, issueId: issueId))
        }
        return .json(200, body)
    }

    private func listIssues(publicationId: String) throws(AnyServiceFailure) -> HTTPResponse {
        guard let publication = service.catalog.publication(publicationId) else { throw AnyServiceFailure(ServiceError.unknownPublication(publicationId)) }
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
            return reply(ServiceError.unknownPublication(publicationId).response)
        }
        let root: JSONValue
        do { root = try JSONDocument(parsing: request.body).root } catch {
            return reply(ServiceError.invalidJSON(error).response)
        }
        guard root.kind == .object, let published = root["published"]?.string.flatMap(DateText.rfc3339) else {
            return reply(CatalogError.invalidIssue("expected {\"published\": RFC 3339 instant, \"title\": optional string, \"free\": optional boolean}").response)
        }
        if let free = root["free"], !free.isNull, free.bool == nil {
            return reply(CatalogError.invalidIssue("free must be true or false").response)
        }
        let issue = Issue(id: issueId, title: root["title"]?.string, published: published, isFree: root["free"]?.bool ?? false)
        service.publish(issue, in: publicationId) { result in
            switch result {
            case .success:
                var writer = JSONWriter(capacity: 256)
                EntitlementJSON.write(issue, into: &writer)
                reply(.json(200, writer.bytes))
            case .failure(let error):
                reply(ServiceError.notStored("issue", error).response)
            }
        }
    }

    private func refreshDue(_ request: HTTPRequest) throws(AnyServiceFailure) -> HTTPResponse {
        guard let window = ServiceConfiguration.milliseconds(fromDuration: request.query["within"] ?? "3d") else { throw AnyServiceFailure(PurchaseError.invalidWindow) }
        let due: [RefreshDue]
        do { due = try service.refreshDue(within: window) } catch { throw AnyServiceFailure(ServiceError.storeUnavailable(error)) }
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

    /// The `at` and `environment` query parameters (now and production when absent).
    private func asOf(_ request: HTTPRequest) throws(AnyServiceFailure) -> (at: Instant, environment: Environment) {
        var at = service.clock()
        if let text = request.query["at"] {
            guard let instant = DateText.rfc3339(text) else { throw AnyServiceFailure(HintedFailure.hinted(EntitlementError.invalidAt, ServiceRouter.atHint(text))) }
            at = instant
        }
        var environment = Environment.production
        if let text = request.query["environment"] {
            guard let value = Environment(rawValue: text) else { throw AnyServiceFailure(EntitlementError.invalidEnvironment) }
            environment = value
        }
        return (at, environment)
    }

    /// The 401 error for a request without the API token (or, to a path whose route needs it, the
    /// admin token); nil when it has one.
    private func unauthorized(_ request: HTTPRequest) -> ServiceError? {
        if authorized(request, token: service.configuration.apiToken) { return nil }
        if ServiceRouter.route(for: request.pathSegments)?.access == .adminToken, authorized(request, token: service.configuration.adminToken) {
            return nil
        }
        return .unauthorized
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
}
