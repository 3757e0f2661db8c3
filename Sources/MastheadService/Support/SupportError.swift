/// The errors of the support routes.
enum SupportError: ServiceFailure {
    /// The lookup's `q` is missing, empty, too long or holds a control character: the reason says which.
    case invalidLookup(String)

    var rendering: (status: Int, code: String, message: String) {
        switch self {
        case .invalidLookup(let reason): (400, "invalid_lookup", "the query parameter q \(reason)")
        }
    }

    static var examples: [SupportError] { [.invalidLookup("")] }
}
