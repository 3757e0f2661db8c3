import MastheadHTTP

/// One entry of the service's route table (``ServiceRouter/routes``): the methods and path
/// template it answers, who may call it, the label its requests are counted under in the metrics,
/// and its handler.
///
/// A class: the table's entries are shared by every request routed to them, never copied.
final class Route: Sendable {
    /// Answers a request at once (a read), or throws the error to answer.
    typealias ImmediateHandler = @Sendable (ServiceRouter, HTTPRequest, PathParameters) throws(AnyServiceFailure) -> HTTPResponse
    /// Calls `reply` once, possibly from another thread (a write, after its commit).
    typealias DeferredHandler = @Sendable (ServiceRouter, HTTPRequest, PathParameters, _ reply: @escaping @Sendable (HTTPResponse) -> Void) -> Void

    /// What answers a request routed here, its ids checked.
    enum Handler: Sendable {
        case immediate(ImmediateHandler)
        case deferred(DeferredHandler)
    }

    /// Who may call a route, and how that is checked.
    enum Access: Sendable {
        /// Anyone, without a credential, with the route's methods; another method on its path is
        /// looked up like a path with no route (401 without a token, else 404).
        case open
        /// The App Store: its shared secret is in the body (checked by the handler) and it sends no
        /// token, so a wrong method on the path is 405 without one.
        case sharedSecretInBody
        /// `Authorization: Bearer` with the API token, or the admin token, which is accepted wherever the API token is.
        case apiToken
        /// `Authorization: Bearer` with the admin token (the API token gets 403).
        case adminToken

        /// Whether a request needs a token before its route is looked up.
        var needsToken: Bool {
            switch self {
            case .open, .sharedSecretInBody: false
            case .apiToken, .adminToken: true
            }
        }
    }

    /// A segment of a path template: literal text, or a variable for an id of a kind (`{userId}`).
    enum Segment: Sendable, Equatable {
        case literal(String)
        case identifier(PathIdentifier)
    }

    /// The methods it answers; HEAD is answered wherever GET is.
    let methods: [String]
    /// The path template, as the OpenAPI document writes it: `/v1/users/{userId}/receipts`.
    let path: String
    let access: Access
    /// The `route` label of its requests in `/metrics`.
    let label: String
    let handler: Handler
    /// The template's segments between slashes.
    let segments: [Segment]

    /// Creates a route; every `{variable}` of the template must name a ``PathIdentifier`` kind.
    init(_ methods: [String], _ path: String, _ access: Access, label: String, _ handler: Handler) {
        self.methods = methods
        self.path = path
        self.access = access
        self.label = label
        self.handler = handler
        segments = path.split(separator: "/").map { segment in
            guard segment.hasPrefix("{"), segment.hasSuffix("}") else { return .literal(String(segment)) }
            let variable = segment.dropFirst().dropLast()
            guard let kind = PathIdentifier.allCases.first(where: { $0.variable == variable }) else {
                preconditionFailure("\(path): {\(variable)} is not the variable of a kind of id")
            }
            return .identifier(kind)
        }
    }

    /// Whether the request's decoded path segments fit the template (literal text compared byte
    /// for byte: the templates' literals are ASCII letters, digits, `-` and `.`).
    func matches(_ request: HTTPRequest) -> Bool {
        guard request.pathSegmentCount == segments.count else { return false }
        for index in segments.indices {
            if case .literal(let text) = segments[index], !request.pathSegment(index, is: text) { return false }
        }
        return true
    }

    /// Whether it answers `method` (HEAD is asked as GET).
    func allows(_ method: String) -> Bool { methods.contains(method) }

    /// The first id of the request's path, in path order, that breaks the rules of its kind, or nil.
    func problem(in request: HTTPRequest) -> ServiceError? {
        for index in segments.indices {
            if case .identifier(let kind) = segments[index], let problem = kind.problem(in: request, at: index) { return problem }
        }
        return nil
    }
}
