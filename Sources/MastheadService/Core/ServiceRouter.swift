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
/// test that holds the OpenAPI document to the router. The API token (or the admin token, accepted
/// wherever the API token is) is checked before the path is looked up (without either, an unknown
/// path is 401 too), except on routes that need none. Errors
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

    /// The routes, in the OpenAPI document's order: each feature's, as its folder declares them.
    static let routes: [Route] = operationRoutes + notificationRoutes + purchaseRoutes + entitlementRoutes + appAccountTokenRoutes + grantRoutes + consumptionRoutes + catalogRoutes
        + giftCodeRoutes + licenceRoutes + refreshRoutes + consoleRoutes + explanationRoutes + supportRoutes + webhookRoutes + googlePlayRoutes

    /// The route whose template fits the request's decoded path, whatever the method.
    static func route(for request: HTTPRequest) -> Route? {
        for route in routes where route.matches(request) { return route }
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
            let route = ServiceRouter.route(for: head)
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
        let route = ServiceRouter.route(for: request)
        let label = route?.label ?? "other"
        let answer: HTTPResponse
        do throws(AnyServiceFailure) {
            let admitted: Route
            do throws(ServiceError) { admitted = try admit(request, method: request.method == "HEAD" ? "GET" : request.method, to: route) } catch {
                throw AnyServiceFailure(error)
            }
            let ids = PathParameters(template: admitted.segments, request: request)
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

    // MARK: Helpers

    /// The 401 error for a request with neither the API token nor the admin token, which is
    /// accepted wherever the API token is (the support console sends only it); nil when it has one.
    private func unauthorized(_ request: HTTPRequest) -> ServiceError? {
        if authorized(request, token: service.configuration.apiToken) || authorized(request, token: service.configuration.adminToken) { return nil }
        return .unauthorized
    }

    /// Whether the request sends `Authorization: Bearer <token>`: the scheme in any case
    /// (RFC 9110 §11.1), the token after one or more spaces, compared in constant time.
    private func authorized(_ request: HTTPRequest, token: String) -> Bool {
        guard let header = request.headerUTF8("authorization") else { return false }
        return header.withUnsafeBufferPointer { bytes in
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
