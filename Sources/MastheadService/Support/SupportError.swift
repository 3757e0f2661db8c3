/// The errors of the support routes.
enum SupportError: ServiceFailure {
    /// The lookup's `q` is missing, empty, too long or holds a control character: the reason says which.
    case invalidLookup(String)

    var status: Int { 400 }

    var code: String { "invalid_lookup" }

    var message: String {
        switch self {
        case .invalidLookup(let reason): "the query parameter q \(reason)"
        }
    }

    static var examples: [SupportError] { [.invalidLookup("")] }
}
