import MastheadHTTP

/// The ids of a request's path, where its route's template has variables.
struct PathParameters {
    let template: [Route.Segment]
    let request: HTTPRequest

    /// The id of a kind (the route's template has a variable for it), percent-decoded.
    subscript(kind: PathIdentifier) -> String {
        for index in template.indices {
            if case .identifier(kind) = template[index] { return request.pathSegment(index) }
        }
        preconditionFailure("the route has no {\(kind.variable)}")
    }
}
