/// The ids of a request's path, where its route's template has variables.
struct PathParameters {
    let template: [Route.Segment]
    let path: [String]

    /// The id of a kind (the route's template has a variable for it).
    subscript(kind: PathIdentifier) -> String {
        for index in template.indices {
            if case .identifier(kind) = template[index] { return path[index] }
        }
        preconditionFailure("the route has no {\(kind.variable)}")
    }
}
